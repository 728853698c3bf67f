import Foundation
import NetCore
import NetKitTesting
import NetTransport
import Testing

/// The RFC 6265 test suite's parser cases over loopback TCP, through the engine and a cookie jar on
/// URLSessionTransport: every `302` of the suite's server sets the cookies, the result page echoes the `Cookie`
/// header it received. The cases that need the suite's host names (a `Domain` attribute, an absolute `Location`)
/// are left to the jar's own test (`HTTPStateCookieTests`): here every request goes to 127.0.0.1.
@Suite("RFC 6265 test suite over loopback TCP: URLSession")
struct URLSessionHTTPStateCookieTests {
    static let cases = HTTPStateCookieCase.all.filter { !$0.needsHostNames }

    @Test(
        "the parser cases that need no host name, each through the engine's jar",
        .disabled("needs engine redirects: the transport follows the 302, so the jar never sees its Set-Cookie"),
        .enabled(if: !cases.isEmpty, "needs the suite's cases (Scripts/cookie-test-data.sh)"))
    func parserCases() async throws {
        let server = try HTTPStateCookieSuite.server(for: Self.cases)
        defer { server.stop() }
        let outcomes = await HTTPStateCookieSuite.run(
            Self.cases, against: server, on: URLSessionTransport(configuration: .ephemeral))
        print("http-state over URLSession: \(outcomes.filter(\.passed).count) of \(outcomes.count) cases pass")
        for outcome in outcomes {
            #expect(outcome.passed, "\(outcome)")
        }
    }
}
