import Foundation
import NetKitLock
import Testing
@testable import NetCore

/// A base URL NetKit cannot send to fails with the one rule it breaks, its text naming the URL (no password, no
/// query value) and what to write instead; the engine logs that failure once.
@Suite("Base URL rules")
struct BaseURLRuleTests {
    /// The error `base` fails with as a base URL.
    func error(base: String) throws -> NetworkError {
        let url = try #require(URL(string: base))
        return try #require(throws: NetworkError.self) {
            try RequestURLBuilder.url(base: url, path: "/users", query: nil)
        }
    }

    @Test("noScheme: a host and port without a scheme, whose host reads as one")
    func noSchemeHostAndPort() throws {
        let error = try error(base: "localhost:8080")
        #expect(error == .invalidBaseURL(url: "localhost:8080", rule: .noScheme))
        #expect(
            error.description
                == #"The base URL "localhost:8080" is invalid: it has no scheme; write it with one, as "#
                + #""http://localhost:8080" or "https://api.example.com""#)
        #expect(error.localizedDescription == error.description)
    }

    @Test("noScheme: a host alone, or a host, port and path")
    func noSchemeHostAlone() throws {
        #expect(try error(base: "api.example.com") == .invalidBaseURL(url: "api.example.com", rule: .noScheme))
        #expect(try error(base: "localhost:8080/v1") == .invalidBaseURL(url: "localhost:8080/v1", rule: .noScheme))
        #expect(try error(base: "relative/path") == .invalidBaseURL(url: "relative/path", rule: .noScheme))
    }

    @Test("unsupportedScheme: a scheme other than http or https")
    func unsupportedScheme() throws {
        let error = try error(base: "ftp://files.example.com/pub")
        #expect(error == .invalidBaseURL(url: "ftp://files.example.com/pub", rule: .unsupportedScheme))
        #expect(
            error.description
                == #"The base URL "ftp://files.example.com/pub" is invalid: its scheme is not http or https, the only "#
                + #"schemes NetKit sends requests to; write it as "https://host/path""#)
        #expect(try self.error(base: "file:///tmp") == .invalidBaseURL(url: "file:///tmp", rule: .unsupportedScheme))
        #expect(
            try self.error(base: "mailto:someone@example.com")
                == .invalidBaseURL(url: "…@example.com", rule: .unsupportedScheme))
    }

    @Test("noHost: http or https without a host")
    func noHost() throws {
        let error = try error(base: "https:///v1")
        #expect(error == .invalidBaseURL(url: "https:///v1", rule: .noHost))
        #expect(
            error.description
                == #"The base URL "https:///v1" is invalid: it has no host; name one after "//", as in "#
                + #""https://api.example.com/v1""#)
        #expect(try self.error(base: "http://") == .invalidBaseURL(url: "http://", rule: .noHost))
    }

    @Test("invalidAuthority: a host the wire cannot carry")
    func invalidAuthority() throws {
        let error = try #require(throws: NetworkError.self) {
            try HTTPRequestHead(method: .get, scheme: "https", authority: "api example.com", path: "/v1")
        }
        #expect(error == .invalidBaseURL(url: "https://api example.com/v1", rule: .invalidAuthority))
        #expect(
            error.description
                == #"The base URL "https://api example.com/v1" is invalid: its host or port holds a character a "#
                + ##"request cannot carry (a space, a control character, "@", "/", "?" or "#"); check the host for a "##
                + "typo")
    }

    @Test("invalidTarget: a path or query the wire cannot carry")
    func invalidTarget() {
        // Foundation's URL percent-encodes such characters when it parses; the rule guards URLs made otherwise.
        let error = NetworkError.invalidBaseURL(url: #"https://api.example.com/a\tb"#, rule: .invalidTarget)
        #expect(
            error.description
                == #"The base URL "https://api.example.com/a\tb" is invalid: its path or query holds a character a "#
                + ##"request line cannot carry (a space, a control character or "#"); percent-encode it"##)
    }

    @Test("the URL shown has no user, no password and no query value")
    func hidesSecrets() throws {
        let error = try error(base: "ftp://ann:pa55word@files.example.com/pub?token=s3cr3t#frag")
        #expect(error == .invalidBaseURL(url: "ftp://files.example.com/pub?…", rule: .unsupportedScheme))
        let hostAndPort = try self.error(base: "localhost:8080?api_key=s3cr3t")
        #expect(hostAndPort == .invalidBaseURL(url: "localhost:8080?…", rule: .noScheme))
        let userWithoutScheme = try self.error(base: "ann:pa55word@api.example.com/v1")
        guard case .invalidBaseURL(let shown, _) = userWithoutScheme else {
            Issue.record("unexpected \(userWithoutScheme)")
            return
        }
        #expect(shown == "…@api.example.com/v1")
        for text in ["\(error)", "\(hostAndPort)", "\(userWithoutScheme)"] {
            #expect(!text.contains("pa55word") && !text.contains("s3cr3t") && !text.contains("ann:"), "\(text)")
        }
    }

    @Test("every rule's reason ends a sentence a newcomer can act on, on one line")
    func everyReason() {
        for rule in NetworkError.BaseURLRule.allCases {
            let error = NetworkError.invalidBaseURL(url: "x", rule: rule)
            #expect(rule.reason.hasPrefix("it"))
            #expect(error.description == "The base URL \"x\" is invalid: \(rule.reason)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test("a base URL that HTTPRequestHead(url:) and setURL refuse names the rule; the head is unchanged")
    func requestHead() throws {
        #expect(throws: NetworkError.invalidBaseURL(url: "localhost:8080", rule: .noScheme)) {
            try HTTPRequestHead(url: URL(string: "localhost:8080")!)
        }
        var head = try HTTPRequestHead(url: URL(string: "https://api.example.com/v1")!)
        #expect(throws: NetworkError.invalidBaseURL(url: "https:///x", rule: .noHost)) {
            try head.setURL(URL(string: "https:///x")!)
        }
        #expect(head.url?.absoluteString == "https://api.example.com/v1")
        #expect(throws: NetworkError.invalidBaseURL(url: "://api.example.com/", rule: .noScheme)) {
            try head.setTarget(scheme: "", authority: "api.example.com", path: "/")
        }
        #expect(throws: NetworkError.invalidBaseURL(url: "ht tp://api.example.com/", rule: .unsupportedScheme)) {
            try head.setTarget(scheme: "ht tp", authority: "api.example.com", path: "/")
        }
        #expect(throws: NetworkError.invalidBaseURL(url: "https:///", rule: .noHost)) {
            try head.setTarget(scheme: "https", authority: "", path: "/")
        }
        // A path is not the base URL's: it stays the catch-all, as setPath(_:) throws it.
        #expect(throws: NetworkError.invalidURL) {
            try head.setTarget(scheme: "https", authority: "api.example.com", path: "/a b")
        }
        // Another scheme is the caller's to send over its own transport: only a base URL must be http or https.
        #expect(try HTTPRequestHead(url: URL(string: "ftp://files.example.com/pub")!).scheme == "ftp")
    }

    @Test("a query value or item nothing can carry does not exist: every one is percent-encoded, none refused")
    func queryValuesAreEncoded() throws {
        let url = try RequestURLBuilder.url(
            base: URL(string: "https://api.example.com/v1?k=a%20b")!, path: "/search",
            query: ["q": "a\r\nb #1"], queryItems: [URLQueryItem(name: "x y\0", value: "\u{7F}ü&=?")])
        #expect(
            url.absoluteString
                == "https://api.example.com/v1/search?k=a%20b&q=a%0D%0Ab%20%231&x%20y%00=%7F%C3%BC%26%3D%3F")
    }

    @Test("the engine logs a request it refuses to build once, naming the rule; the plugins see no request")
    func loggedOnce() async throws {
        let lines = Lock<[String]>([])
        let logger = NetworkLogger(subsystem: "test", minimumLevel: .debug) { level, message in
            lines.withLock { $0.append("\(level.name): \(message)") }
        }
        let executor = RequestExecutor(
            transport: FailingTransport(), plugins: [LoggingPlugin(logger: logger)])
        let error = try await #require(throws: NetworkError.self) {
            try await executor.send(Probe(path: "/users/1?api_key=s3cr3t"), baseURL: URL(string: "localhost:8080")!)
        }
        #expect(error == .invalidBaseURL(url: "localhost:8080", rule: .noScheme))
        #expect(
            lines.withLock { $0 } == [
                #"error: GET /users/1?… was not sent: NetworkError: The base URL "localhost:8080" is invalid: it has no "#
                    + #"scheme; write it with one, as "http://localhost:8080" or "https://api.example.com""#
            ])
    }

    @Test("a bad path and an invalid header are logged once each, on send's road and stream's")
    func otherValidationFailuresLoggedOnce() async throws {
        let records = Lock<[NetworkLogRecord]>([])
        let logger = NetworkLogger(subsystem: "test", minimumLevel: .error) { record in
            records.withLock { $0.append(record) }
        }
        let executor = RequestExecutor(transport: FailingTransport(), plugins: [LoggingPlugin(logger: logger)])
        let base = URL(string: "https://api.example.com/v1")!
        await #expect(throws: NetworkError.invalidPath(path: "/a/../admin", rule: .dotSegment)) {
            try await executor.send(Probe(path: "/a/../admin"), baseURL: base)
        }
        await #expect(throws: NetworkError.invalidHeader(name: "X-Bad")) {
            _ = try await executor.streamingResponse(
                for: Probe(path: "/x", headers: ["X-Bad": "a\r\nb"]), baseURL: base)
        }
        let written = records.withLock { $0 }
        #expect(
            written.map(\.message) == [
                #"GET /a/../admin was not sent: NetworkError: The path "/a/../admin" is invalid: it has a ".." segment"#,
                #"GET /x was not sent: NetworkError: The header "X-Bad" is invalid: its name is not a token, its value "#
                    + "holds CR, LF or NUL, or it is a framing header that contradicts the body",
            ])
        #expect(written.allSatisfy { $0.level == .error && $0.event == .failure && $0.method == .get })
        #expect(written.first?.error == #"NetworkError: The path "/a/../admin" is invalid: it has a ".." segment"#)
    }

    struct Probe: Endpoint {
        typealias Response = Data
        var path: String
        var headers: [String: String]? = nil
        var method: HTTPMethod { .get }
    }

    /// A transport no test here may reach: every failure above comes before a byte is sent.
    struct FailingTransport: HTTPTransport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            Issue.record("the request was sent: \(request.head)")
            throw TransportError(.cannotConnect)
        }
    }
}
