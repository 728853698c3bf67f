import Foundation
import Testing
import NetCore

/// The seam's method: any RFC 9110 token, spelled as given, and what it says about safety and idempotency.
@Suite("HTTPRequestMethod: any method token (RFC 9110 §9.1)")
struct HTTPRequestMethodTests {
    @Test(
        "tokens are methods, spelled as given; anything else is not", arguments: ["QUERY", "M-SEARCH", "purge", "X_1"])
    func tokens(_ text: String) throws {
        let method = try #require(HTTPRequestMethod(rawValue: text))
        #expect(method.rawValue == text && method.knownMethod == nil)
    }

    @Test("not tokens", arguments: ["", "GET /", "A,B", "(x)", "caf\u{e9}", "A\r\nB", "A\u{0}"])
    func notTokens(_ text: String) {
        #expect(HTTPRequestMethod(rawValue: text) == nil)
    }

    @Test("the methods of HTTPMethod keep their names, safety and idempotency; case matters")
    func known() throws {
        for method in HTTPMethod.allCases {
            let converted = HTTPRequestMethod(method)
            #expect(converted.knownMethod == method && converted.rawValue == method.rawValue)
            #expect(HTTPRequestMethod(rawValue: method.rawValue) == converted)
            #expect(converted.isIdempotent == method.isIdempotent)
        }
        #expect(HTTPRequestMethod(rawValue: "get") != .get, "methods are case-sensitive")
        #expect([HTTPRequestMethod.get, .head, .options, .trace].allSatisfy { $0.isSafe })
        #expect(![HTTPRequestMethod.post, .put, .delete, .patch, .connect].contains { $0.isSafe })
        let query = try #require(HTTPRequestMethod(rawValue: "QUERY"))
        #expect(!query.isSafe && !query.isIdempotent, "a method NetKit does not know is neither")
    }
}
