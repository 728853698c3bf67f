#if AsyncHTTPClient
import NetAsyncHTTPClient
import NetKitTesting
import Testing

@Suite("HAR recording: AsyncHTTPClient transport", .timeLimit(.minutes(10)))
struct AsyncHTTPClientHARRecordingTests {
    @Test("real exchanges over 127.0.0.1 are recorded, bodies whole, no credential written")
    func recordOverLoopback() async throws {
        let transport = AsyncHTTPClientTransport()
        let outcome: [String]
        do {
            outcome = try await HARRecordingLoopbackCheck.run(on: transport)
        } catch {
            try await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
        #expect(outcome == HARRecordingLoopbackCheck.expected)
    }
}
#endif
