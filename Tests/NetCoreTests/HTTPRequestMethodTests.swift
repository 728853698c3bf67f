import Foundation
import Testing
import NetCore
import NetKitTesting

/// The seam's method: any RFC 9110 token, spelled as given, and what the engine decides from it.
@Suite("HTTPRequestMethod: any method token (RFC 9110 §9.1)")
struct HTTPRequestMethodTests {
    struct Propfind: Endpoint {
        typealias Response = EmptyResponse
        var path: String { "/dav/folder" }
        var method: HTTPMethod { .get }
        var requestMethod: HTTPRequestMethod { HTTPRequestMethod(rawValue: "PROPFIND")! }
    }

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

    @Test("an endpoint's requestMethod is what the transport gets; a success of it invalidates the cache")
    func endpointMethod() async throws {
        let stub = StubTransport { request, _ in
            request.method.rawValue == "PROPFIND" ? .status(207) : .json("{}", headers: ["Cache-Control": "max-age=60"])
        }
        var executor = RequestExecutor(transport: stub)
        executor.responseCache = ResponseCache(maximumBytes: 1 << 20)
        struct Folder: Endpoint {
            typealias Response = EmptyResponse
            var path: String { "/dav/folder" }
            var method: HTTPMethod { .get }
        }
        let base = URL(string: "https://api.test")!
        _ = try await executor.send(Folder(), baseURL: base)
        _ = try await executor.send(Propfind(), baseURL: base)
        _ = try await executor.send(Folder(), baseURL: base)
        #expect(stub.requests.map(\.method.rawValue) == ["GET", "PROPFIND", "GET"], "PROPFIND cleared the stored GET")
    }
}
