#if OpenAPI
import Foundation
import HTTPTypes
import NetCore
import Testing

@testable import NetOpenAPI

@Suite("Heads between swift-http-types and NetKit (pure)")
struct HeadConversionTests {
    @Test("the server URL's path and the operation's join with one slash; the query stays encoded as given")
    func joinsPaths() throws {
        for base in ["https://api.test/v1", "https://api.test/v1/", "https://api.test/v1//"] {
            let head = try HeadConversion.head(of: request(.get, "/todos/a%2Fb?q=x%20y"), baseURL: URL(string: base)!)
            #expect(head.path == "/v1/todos/a%2Fb?q=x%20y")
            #expect(head.authority == "api.test")
        }
        let root = try HeadConversion.head(of: request(.get, "/todos"), baseURL: URL(string: "http://127.0.0.1:8080")!)
        #expect(root.url?.absoluteString == "http://127.0.0.1:8080/todos")
    }

    @Test("repeated fields stay apart and in order; framing fields are left to the body")
    func fields() throws {
        let head = try HeadConversion.head(
            of: request(
                .post, "/x",
                [
                    ("Accept", "a"), ("X-Tag", "1"), ("Content-Length", "99"), ("X-Tag", "2"),
                    ("Transfer-Encoding", "chunked"),
                ]
            ),
            baseURL: URL(string: "https://api.test")!)
        #expect(head.headerFields.map(\.name) == ["Accept", "X-Tag", "X-Tag"])
        #expect(head.headerFields.values(for: "x-tag") == ["1", "2"])
    }

    @Test("a response keeps every field, repeated ones apart, and its status and reason")
    func response() throws {
        let fields = try HTTPHeaderFields([
            (name: "Set-Cookie", value: "a=1"), (name: "Content-Type", value: "text/plain"),
            (name: "Set-Cookie", value: "b=2"),
        ])
        let converted = HeadConversion.response(
            of: NetCore.HTTPResponseHead(statusCode: 418, reasonPhrase: "I'm a teapot", headerFields: fields))
        #expect(converted.status.code == 418)
        #expect(converted.status.reasonPhrase == "I'm a teapot")
        #expect(converted.headerFields[values: .setCookie] == ["a=1", "b=2"])
        #expect(converted.headerFields.count == 3)
    }

    @Test("a server URL with a query, another scheme or none, is refused with the one reason")
    func badBase() {
        #expect(
            throws: OpenAPITransportError.invalidBaseURL(reason: "it has a query; the client's path brings its own")
        ) {
            try HeadConversion.head(of: request(.get, "/x"), baseURL: URL(string: "https://api.test/?k=v")!)
        }
        #expect(throws: OpenAPITransportError.invalidBaseURL(reason: NetworkError.BaseURLRule.unsupportedScheme.reason))
        {
            try HeadConversion.head(of: request(.get, "/x"), baseURL: URL(string: "file:///tmp")!)
        }
        // The one rule NetKit's head found broken, not a list of every rule.
        #expect(throws: OpenAPITransportError.invalidBaseURL(reason: NetworkError.BaseURLRule.noScheme.reason)) {
            try HeadConversion.head(of: request(.get, "/x"), baseURL: URL(string: "localhost:8080")!)
        }
    }
}
#endif
