import NetKitTesting
import NetTransport
import Testing

@Suite("A file upload whose answer is streamed: URLSession transport", .timeLimit(.minutes(10)))
struct URLSessionUploadStreamTests {
    @Test("the file goes up whole and the answer is read line by line as it arrives")
    func uploadThenStream() async throws {
        #expect(try await UploadStreamCheck.run(on: URLSessionTransport()) == UploadStreamCheck.expected)
    }
}
