#if AsyncHTTPClient
import NetAsyncHTTPClient
import NetKitTesting
import Testing

@Suite("A file upload whose answer is streamed: AsyncHTTPClient transport", .timeLimit(.minutes(10)))
struct AsyncHTTPClientUploadStreamTests {
    @Test("the file goes up whole and the answer is read line by line as it arrives")
    func uploadThenStream() async throws {
        let transport = AsyncHTTPClientTransport()
        let outcome = try await UploadStreamCheck.run(on: transport)
        try await transport.shutdown()
        #expect(outcome == UploadStreamCheck.expected)
    }
}
#endif
