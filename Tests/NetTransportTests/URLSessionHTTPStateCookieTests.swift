import Foundation
import NetCore
import NetKitTesting
import NetTransport
import Testing

/// Cookies set on a redirect, over loopback TCP, through the engine and a cookie jar on URLSessionTransport: every
/// `302` of the suite's server sets the cookies, the result page echoes the `Cookie` header it received.
@Suite("Cookies on redirects over loopback TCP: URLSession")
struct URLSessionHTTPStateCookieTests {
    @Test("NetKit's own cases, each through the engine's jar")
    func ownCases() async throws {
        let server = try HTTPStateCookieSuite.server(for: HTTPStateCookieCase.netKit)
        defer { server.stop() }
        let outcomes = await HTTPStateCookieSuite.run(
            HTTPStateCookieCase.netKit, against: server, on: URLSessionTransport(configuration: .ephemeral))
        for outcome in outcomes {
            #expect(outcome.passed, "\(outcome)")
        }
    }

    /// The RFC 6265 suite's cases that need no host name (a `Domain` attribute, an absolute `Location` are left to
    /// the jar's own test, `HTTPStateCookieTests`: here every request goes to 127.0.0.1), when the suite's data is
    /// there (`Scripts/cookie-test-data.sh`). FoundationNetworking hands several `Set-Cookie` fields over joined with
    /// ", ": a field whose value holds a comma, or one that does not start with a token name and `=`, cannot be told
    /// apart from its neighbours once joined (Docs/Linux.md), so those cases are left to AsyncHTTPClient, which keeps
    /// each field apart.
    static let suiteCases = HTTPStateCookieCase.all.filter { testCase in
        !testCase.needsHostNames && !testCase.setCookies.contains { $0.contains(",") }
            && (testCase.setCookies.count < 2 || testCase.setCookies.allSatisfy(startsWithName))
    }

    /// Whether `field` starts with a token name and `=`, as NetKit's splitting of joined fields needs.
    private static func startsWithName(_ field: String) -> Bool {
        let trimmed = field.drop { $0 == " " || $0 == "\t" }
        guard let equals = trimmed.firstIndex(of: "="), equals != trimmed.startIndex else { return false }
        return trimmed[..<equals].utf8.allSatisfy(HeaderValidation.isTokenByte)
    }

    @Test(
        "the RFC 6265 suite's parser cases that need no host name, each through the engine's jar",
        .enabled(if: !suiteCases.isEmpty, "needs the suite's cases (Scripts/cookie-test-data.sh)"))
    func suite() async throws {
        let server = try HTTPStateCookieSuite.server(for: Self.suiteCases)
        defer { server.stop() }
        let outcomes = await HTTPStateCookieSuite.run(
            Self.suiteCases, against: server, on: URLSessionTransport(configuration: .ephemeral))
        for outcome in outcomes {
            #expect(outcome.passed, "\(outcome)")
        }
    }
}
