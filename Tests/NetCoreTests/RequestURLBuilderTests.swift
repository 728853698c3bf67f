import Foundation
import Testing
@testable import NetCore

@Suite("Request URL building")
struct RequestURLBuilderTests {
    let base = URL(string: "https://api.example.com/v1")!

    @Test(
        "joins base path and request path with exactly one slash",
        arguments: [
            ("https://api.example.com/v1", "/users", "https://api.example.com/v1/users"),
            ("https://api.example.com/v1/", "/users", "https://api.example.com/v1/users"),
            ("https://api.example.com/v1/", "users", "https://api.example.com/v1/users"),
            ("https://api.example.com", "users/7/", "https://api.example.com/users/7/"),
            ("https://api.example.com/v1", "", "https://api.example.com/v1"),
            ("http://127.0.0.1:8080", "/a/b", "http://127.0.0.1:8080/a/b"),
        ])
    func joinsPaths(base: String, path: String, expected: String) throws {
        let url = try RequestURLBuilder.url(base: URL(string: base)!, path: path, query: nil)
        #expect(url.absoluteString == expected)
    }

    /// The same join done the long way, through Foundation's URLComponents: what the wire-parts road must agree
    /// with. User and password are never part of a request's target.
    func throughComponents(base: URL, path: String) -> URL? {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true) else { return nil }
        let basePath = components.percentEncodedPath
        let relative = PercentEncoding.encodePath(path)
        let trimmedBase = basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath
        let trimmedRelative = relative.hasPrefix("/") ? String(relative.dropFirst()) : relative
        var joined = relative.isEmpty ? basePath : trimmedBase + "/" + trimmedRelative
        if joined.isEmpty { joined = "/" }
        components.percentEncodedPath = joined
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.url
    }

    @Test(
        "the road without URLComponents gives the URL the components road gives",
        arguments: [
            "https://api.example.com", "https://api.example.com/", "https://api.example.com/v1",
            "https://api.example.com/v1/",
            "http://127.0.0.1:8080/a%20b/", "https://user:pw@example.com:8443/base", "https://api.example.com/v1?key=1",
            "https://api.example.com/v1#top", "https://xn--bcher-kva.example/",
        ])
    func roadsAgree(base: String) throws {
        for path in ["", "/", "/users", "users/7/", "/a b/ü/%41", "/files/report..pdf", "/x;y=1/z"] {
            let fast = try RequestURLBuilder.url(base: URL(string: base)!, path: path, query: nil)
            #expect(
                fast.absoluteString == throughComponents(base: URL(string: base)!, path: path)?.absoluteString,
                "\(base) + \(path)")
        }
    }

    @Test(
        "rejects a .. segment, also percent-encoded and double-encoded",
        arguments: [
            "../secret", "/a/../b", "/a/..", "..", "/%2e%2e/x", "/%2E%2E/x", "/.%2e/x", "/%2e./x",
            "/%252e%252e/x", "/%25252e%25252e/x", "/a/..%2fb", "/a/%2e%2e%2fb", "/a/..%5cb",
        ])
    func rejectsTraversal(path: String) {
        let found = rule(of: path)
        #expect(found == .dotSegment || found == .encodedDotSegment, "\(path)")
    }

    @Test(
        "accepts names that merely contain dots",
        arguments: [
            "/files/report..pdf", "/a/.../b", "/a/..b", "/a/b..", "/.well-known/x", "/v1.2/items", "/%2e",
        ])
    func acceptsDottedNames(path: String) throws {
        let url = try RequestURLBuilder.url(base: base, path: path, query: nil)
        #expect(url.path.hasPrefix("/v1/"))
    }

    @Test(
        "rejects schemes, queries, fragments, backslashes and control characters, naming the rule",
        arguments: [
            ("https://evil.example/steal", NetworkError.PathRule.scheme), ("//evil.example", .scheme),
            ("/a?b=1", .query),
            ("/a#frag", .fragment), ("/a\\b", .backslash), ("/a\r\nb", .controlCharacter), ("/a\nb", .controlCharacter),
            ("/a\u{0}b", .controlCharacter), ("/a\tb", .controlCharacter), ("/a/%0a/b", .encodedControlCharacter),
            ("/a/%252525252e%252525252e/b", .nestedEncoding), ("/a/%2525252e%2525252e/b", .encodedDotSegment),
        ])
    func rejectsMalformedPaths(path: String, expected: NetworkError.PathRule) {
        if path == "//evil.example" {
            // Joined below the base path, so it cannot change the host.
            let url = try? RequestURLBuilder.url(base: base, path: path, query: nil)
            #expect(url?.host == "api.example.com")
            return
        }
        #expect(rule(of: path) == expected, "\(path)")
    }

    /// The rule `path` breaks under ``base``, or `nil` when it is accepted or fails otherwise.
    private func rule(of path: String) -> NetworkError.PathRule? {
        do {
            _ = try RequestURLBuilder.url(base: base, path: path, query: nil)
            return nil
        } catch {
            guard case .invalidPath(_, let rule) = error else { return nil }
            return rule
        }
    }

    @Test("percent-encodes what a path may not hold and keeps existing escapes")
    func encodesPath() throws {
        let url = try RequestURLBuilder.url(base: base, path: "/files/my report ü/%20x", query: nil)
        #expect(url.absoluteString == "https://api.example.com/v1/files/my%20report%20%C3%BC/%20x")
    }

    @Test("a base URL without scheme or host is invalid")
    func rejectsRelativeBase() {
        #expect(throws: NetworkError.invalidBaseURL(url: "relative/path", rule: .noScheme)) {
            try RequestURLBuilder.url(base: URL(string: "relative/path")!, path: "/x", query: nil)
        }
    }

    @Test("query parameters are sorted, encoded (+ & = space) and merged after the base query")
    func mergesQuery() throws {
        let base = URL(string: "https://api.example.com/v1?key=abc&lang=en")!
        let url = try RequestURLBuilder.url(
            base: base, path: "/search",
            query: [
                "q": "a+b & c=d", "b": "ü", "a": "",
            ])
        #expect(
            url.absoluteString == "https://api.example.com/v1/search?key=abc&lang=en&a=&b=%C3%BC&q=a%2Bb%20%26%20c%3Dd")
        #expect(
            URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "q" }?.value
                == "a+b & c=d")
    }

    @Test("no trailing question mark without parameters", arguments: [nil, [:]] as [[String: String]?])
    func noTrailingQuestionMark(query: [String: String]?) throws {
        let url = try RequestURLBuilder.url(base: base, path: "/x", query: query)
        #expect(url.absoluteString == "https://api.example.com/v1/x")
    }

    @Test("the order is deterministic whatever the dictionary's order")
    func deterministicOrder() throws {
        var first: String?
        for _ in 0..<20 {
            let query = Dictionary(uniqueKeysWithValues: (0..<30).map { ("k\($0)", "v\($0)") })
            let url = try RequestURLBuilder.url(base: base, path: "/x", query: query).absoluteString
            if let first { #expect(url == first) } else { first = url }
        }
    }
}
