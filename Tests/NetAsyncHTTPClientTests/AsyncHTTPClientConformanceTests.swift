#if AsyncHTTPClient
import NetAsyncHTTPClient
import NetKitTesting
import Testing

/// The AsyncHTTPClient transport against NetKitTesting's transport conformance suite, one test case per check.
@Suite("AsyncHTTPClient transport conformance")
struct AsyncHTTPClientConformanceTests {
    @Test(arguments: TransportConformance.checks)
    func conforms(_ check: TransportConformanceCheck) async throws {
        let transport = AsyncHTTPClientTransport()
        try await check.run(against: transport)
        try await transport.shutdown()
    }
}
#endif
