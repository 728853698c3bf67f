#if AsyncHTTPClient
import Foundation
import NetAsyncHTTPClient
import NetCore
import NetKitTesting
import Testing

/// Cookies set on a redirect, over loopback TCP, through the engine and a cookie jar on AsyncHTTPClientTransport.
@Suite("Cookies on redirects over loopback TCP: AsyncHTTPClient")
struct AsyncHTTPClientHTTPStateCookieTests {
    private func run(_ cases: [HTTPStateCookieCase]) async throws {
        let server = try HTTPStateCookieSuite.server(for: cases)
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport()
        let outcomes = await HTTPStateCookieSuite.run(cases, against: server, on: transport)
        try await transport.shutdown()
        for outcome in outcomes {
            #expect(outcome.passed, "\(outcome)")
        }
    }

    @Test("NetKit's own cases, each through the engine's jar")
    func ownCases() async throws {
        try await run(HTTPStateCookieCase.netKit)
    }

    static let suiteCases = HTTPStateCookieCase.all.filter { !$0.needsHostNames }

    @Test(
        "the RFC 6265 suite's parser cases that need no host name, each through the engine's jar",
        .enabled(if: !suiteCases.isEmpty, "needs the suite's cases (Scripts/cookie-test-data.sh)"))
    func suite() async throws {
        try await run(Self.suiteCases)
    }
}
#endif
