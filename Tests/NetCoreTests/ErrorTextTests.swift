import Foundation
import Testing
@testable import NetCore

/// Every error NetKit throws reads as one line that names what failed and why, through `description` and
/// `localizedDescription` alike, and leaks no secret.
@Suite("Error texts")
struct ErrorTextTests {
    let base = URL(string: "https://api.example.com/v1")!

    /// Checks `error`'s texts: one line each, `localizedDescription` the same as `description`, every fragment of
    /// `naming` present and no fragment of `hiding`.
    func expectReadable(
        _ error: any Error & CustomStringConvertible,
        naming: [String],
        hiding: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let texts = ["\(error)", String(reflecting: error), error.localizedDescription]
        #expect(error.localizedDescription == error.description, sourceLocation: sourceLocation)
        for text in texts {
            #expect(!text.contains("\n") && !text.contains("\r"), "one line: \(text)", sourceLocation: sourceLocation)
            for fragment in naming {
                #expect(text.contains(fragment), "\(fragment) in \(text)", sourceLocation: sourceLocation)
            }
            for fragment in hiding {
                #expect(!text.contains(fragment), "\(fragment) not in \(text)", sourceLocation: sourceLocation)
            }
            #expect(!text.contains("could not be completed"), sourceLocation: sourceLocation)
        }
    }

    /// The error `path` fails with under ``base``.
    func pathError(_ path: String) throws -> NetworkError {
        try #require(throws: NetworkError.self) { try RequestURLBuilder.url(base: base, path: path, query: nil) }
    }

    @Test(
        "a path error names the path and the rule it broke",
        arguments: [
            ("/a/../b", "/a/../b", #"it has a ".." segment"#),
            ("/a/%2e%2e/b", "/a/%2e%2e/b", #"it has a segment that percent-decodes to "..""#),
            ("/a/%252e%252e/b", "/a/%252e%252e/b", #"it has a segment that percent-decodes to "..""#),
            ("/a/%0d%0a/b", "/a/%0d%0a/b", "it has a percent-encoded control character"),
            ("/a/%252525252e/b", "/a/%252525252e/b", "it is percent-encoded more than four times over"),
            (
                "https://evil.example/x", "https://evil.example/x",
                "it names a scheme; the base URL gives the scheme and host"
            ),
            ("/a\\b", #"/a\b"#, "it holds a backslash"),
            ("/a\r\nX-Injected: 1", #"/a\r\nX-Injected: 1"#, "it holds a control character"),
            ("/frag#top", "/frag#…", ##"it holds a fragment ("#")"##),
        ])
    func pathRules(path: String, shown: String, reason: String) throws {
        let error = try pathError(path)
        #expect(error.description == "The path \"\(shown)\" is invalid: \(reason)")
        expectReadable(error, naming: [])
    }

    @Test("a path with a query shows no query value")
    func pathWithQuery() throws {
        let error = try pathError("/search?api_key=XYZ&q=1")
        #expect(error == .invalidPath(path: "/search?…", rule: .query))
        #expect(error.description.hasPrefix(#"The path "/search?…" is invalid: it holds a query ("?")"#))
        expectReadable(error, naming: ["/search"], hiding: ["XYZ", "api_key"])
    }

    @Test("a very long path is cut short in the text")
    func longPath() throws {
        let error = try pathError("/" + String(repeating: "a", count: 500) + "/../x")
        guard case .invalidPath(let shown, .dotSegment) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(shown.count == 201 && shown.hasSuffix("…"))
    }

    @Test("every NetworkError names what failed and why on one line")
    func networkErrors() {
        let cases: [(NetworkError, [String])] = [
            (.invalidURL, ["request URL is invalid", "scheme", "host", "\"..\""]),
            (.invalidMultipartEncoding, ["multipart form", "boundary"]),
            (.emptyResponse, ["empty", "emptyResponseHandler"]),
            (.unauthorized, ["401"]),
            (.invalidResponse, ["not an HTTP response"]),
            (.conflictingBodyTypes, ["body", "multipartData"]),
            (.invalidHeader(name: "X-Bad\r\n"), [#"X-Bad\r\n"#, "CR"]),
            (.responseTooLarge(limitBytes: 1024), ["1024 bytes"]),
            (.uploadStreamConsumed, ["sent only once"]),
            (.invalidPath(path: "/a/../b", rule: .dotSegment), ["/a/../b", "\"..\" segment"]),
            (.invalidBaseURL(url: "localhost:8080", rule: .noScheme), ["\"localhost:8080\"", "no scheme"]),
        ]
        for (error, naming) in cases { expectReadable(error, naming: naming) }
    }

    @Test("every path rule has its reason")
    func pathRuleReasons() {
        for rule in NetworkError.PathRule.allCases {
            #expect(rule.reason.hasPrefix("it "))
            expectReadable(NetworkError.invalidPath(path: "/p", rule: rule), naming: ["\"/p\"", rule.reason])
        }
    }

    @Test("a transport error names its kind and host, never the path or query")
    func transportErrors() {
        let error = TransportError(.connectionLost, host: "api.example.com", detail: "the connection closed")
        expectReadable(error, naming: ["Connection lost", "api.example.com", "the connection closed"])
    }

    @Test("NetCore's other errors read the same through localizedDescription")
    func otherErrors() {
        expectReadable(PluginRetryLimitExceeded(statusCode: 503), naming: ["retry", "503"])
        expectReadable(CookieError.invalidName("a\nb"), naming: [#"a\nb"#, "control character"])
        expectReadable(CookieError.invalidValue(name: "sid"), naming: ["sid"])
        expectReadable(CookieError.invalidDomain(""), naming: ["domain"])
        expectReadable(CookieError.invalidPath("x"), naming: ["path \"x\""])
        expectReadable(
            UploadSourceError.fileNotFound(URL(fileURLWithPath: "/tmp/missing.bin")), naming: ["/tmp/missing.bin"])
        expectReadable(UploadSourceError.streamLengthMismatch(expected: 10, actual: 4), naming: ["4 of 10"])
        expectReadable(StreamingError.lineTooLong(limitBytes: 5), naming: ["5 bytes"])
        expectReadable(
            ResponseDecodingError.missingKey(key: "users", path: ["data", "users"]), naming: ["users", "data/users"])
        let http = HTTPError(statusCode: 500, data: Data(#"{"error":"boom","token":"s3cr3t"}"#.utf8), headers: [:])
        #expect(
            http.description.hasPrefix(#"HTTP 500: {"error":"boom","token":"#) && !http.description.contains("s3cr3t"))
        #expect(http.localizedDescription == "Request failed with status code 500", "EKNetwork's words")
    }

    @Test("a decoding failure names the status, content type, body start and coding path, secrets hidden")
    func decodingFailure() throws {
        struct Item: Decodable { let id: Int }
        let html = Data(
            "<html><head><title>502 Bad Gateway</title></head><body>upstream failed; retry later</body></html>".utf8)
        let original = try #require(throws: DecodingError.self) { try JSONDecoder().decode(Item.self, from: html) }
        let head = HTTPResponseHead(
            statusCode: 200, headerFields: try HTTPHeaderFields(["Content-Type": "text/html; charset=utf-8"]))
        let error = DecodingErrorDetails.adding(head, body: html, to: original)
        let text = "\(error)"
        #expect(text.contains("status 200"))
        #expect(text.contains(#"Content-Type "text/html; charset=utf-8""#))
        #expect(text.contains("\(html.count) bytes"))
        #expect(
            text.contains(#"starting "<html><head><title>502 Bad Gateway</title></head><body>upstream …""#), "64 bytes")
        #expect(!text.contains("\n"))
        guard case .dataCorrupted(let context) = error, case .dataCorrupted(let before) = original else {
            Issue.record("the case changed: \(error)")
            return
        }
        #expect(context.codingPath.isEmpty)
        #expect(
            (context.underlyingError == nil) == (before.underlyingError == nil), "the decoder's own error stays beneath"
        )

        let json = Data(#"{"access_token":"s3cr3t-value-that-is-long","id":"seven"}"#.utf8)
        let mismatch = try #require(throws: DecodingError.self) { try JSONDecoder().decode(Item.self, from: json) }
        let typed = DecodingErrorDetails.adding(
            HTTPResponseHead(statusCode: 201, headerFields: try HTTPHeaderFields(["Content-Type": "application/json"])),
            body: json, to: mismatch
        )
        let typedText = "\(typed)"
        #expect(typedText.contains("id"), "the coding path")
        #expect(typedText.contains(#"status 201, Content-Type "application/json""#))
        #expect(!typedText.contains("s3cr3t"))
        guard case .typeMismatch(_, let typedContext) = typed else {
            Issue.record("the case changed: \(typed)")
            return
        }
        #expect(typedContext.codingPath.map(\.stringValue) == ["id"])

        let empty = DecodingErrorDetails.adding(HTTPResponseHead(statusCode: 200), body: nil, to: original)
        #expect("\(empty)".contains("status 200, no Content-Type, an empty body"))
        let binary = DecodingErrorDetails.adding(
            HTTPResponseHead(statusCode: 200), body: Data([0, 1, 2, 0xFF]), to: original)
        #expect("\(binary)".contains("4 bytes of binary data"))
    }
}
