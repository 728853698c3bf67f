import NetKitTesting
import NetTransport
import Testing

@Suite("HAR recording: URLSession transport", .timeLimit(.minutes(10)))
struct URLSessionHARRecordingTests {
    @Test("real exchanges over 127.0.0.1 are recorded, bodies whole, no credential written")
    func recordOverLoopback() async throws {
        let outcome = try await HARRecordingLoopbackCheck.run(on: URLSessionTransport())
        #expect(outcome == HARRecordingLoopbackCheck.expected)
    }
}
