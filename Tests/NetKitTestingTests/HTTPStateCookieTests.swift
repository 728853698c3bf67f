import Foundation
import NetCore
import NetKitTesting
import Testing

/// The RFC 6265 test suite's parser cases (abarth/http-state) through the jar's API, no network: each case's
/// `Set-Cookie` fields stored as the answer to `http://home.example.org:8888/cookie-parser?<name>`, then the
/// cookies the jar gives for the case's result URL compared with the case's expected `Cookie` header.
@Suite("RFC 6265 test suite: the parser cases through the cookie jar")
struct HTTPStateCookieTests {
    /// The `Cookie` header the jar would send to `testCase`'s result URL; `nil` for none.
    static func header(for testCase: HTTPStateCookieCase) throws -> String? {
        let jar = CookieJar(now: { HTTPStateCookieSuite.now })
        let fields = try HTTPHeaderFields(testCase.setCookies.map { (name: "Set-Cookie", value: $0) })
        jar.storeCookies(from: fields, for: testCase.requestURL)
        let result = try #require(URL(string: testCase.location, relativeTo: testCase.requestURL)).absoluteURL
        let cookies = jar.cookies(for: result)
        return cookies.isEmpty ? nil : cookies.map { $0.name + "=" + $0.value }.joined(separator: "; ")
    }

    @Test("each parser case sends what the suite expects", arguments: HTTPStateCookieCase.all)
    func parserCase(_ testCase: HTTPStateCookieCase) throws {
        #expect(try Self.header(for: testCase) == testCase.expectedCookie, "\(testCase.fields)")
    }

    @Test(
        "the suite's cases are all there: 214 enabled and 4 optional",
        .enabled(if: !HTTPStateCookieCase.all.isEmpty, "needs the suite's cases (Scripts/cookie-test-data.sh)"))
    func count() throws {
        let cases = HTTPStateCookieCase.all
        let passed = try cases.filter { try Self.header(for: $0) == $0.expectedCookie }.count
        print("http-state: \(passed) of \(cases.count) parser cases pass through the jar")
        #expect(cases.count == 218)
        #expect(cases.filter { $0.name.hasPrefix("optional-") }.count == 4)
    }
}
