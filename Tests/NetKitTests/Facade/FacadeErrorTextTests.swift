import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetKitLock
import Testing
import NetKit
import NetKitTesting

/// What EKNetwork's `NetworkManager` throws reads as one line naming what failed and why, and keeps the types and
/// cases EKNetwork users catch.
@Suite("Facade error texts")
struct FacadeErrorTextTests {
    struct Traversal: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/a/../admin" }
        var method: HTTPMethod { .get }
    }

    /// The texts a person sees of `error`, one line each.
    func texts(_ error: any Error) -> [String] {
        ["\(error)", String(reflecting: error), error.localizedDescription]
    }

    @Test("a bad path is still NetworkError.invalidURL through the facade; NetKit's engine names the rule")
    func badPath() async throws {
        let stub = StubTransport { _, _ in .status(204) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        do {
            _ = try await manager.send(Traversal(), accessToken: nil)
            Issue.record("the request was sent")
        } catch NetworkError.invalidURL {
            // EKNetwork's contract: the case users catch.
        }
        let executor = RequestExecutor(transport: stub)
        let error = try await #require(throws: NetworkError.self) {
            try await executor.send(Traversal(), baseURL: stubBase)
        }
        #expect(error == .invalidPath(path: "/a/../admin", rule: .dotSegment))
        #expect(texts(error).allSatisfy { $0 == #"The path "/a/../admin" is invalid: it has a ".." segment"# })
        #expect(stub.requestCount == 0)
    }

    @Test(
        "a base URL the engine refuses is still NetworkError.invalidURL through the facade, logged once with its rule",
        arguments: [
            (
                "localhost:8080",
                #"it has no scheme; write it with one, as "http://localhost:8080" or "https://api.example.com""#
            ),
            (
                "ftp://ann:pa55@files.example.com/pub?key=s3cr3t",
                #"its scheme is not http or https, the only schemes NetKit sends requests to; write it as "#
                    + #""https://host/path""#
            ),
        ])
    func badBaseURL(base: String, reason: String) async throws {
        let lines = Lock<[String]>([])
        let stub = StubTransport { _, _ in .status(204) }
        let manager = NetworkManager(baseURL: URL(string: base)!, transport: stub)
        manager.logger = NetworkLogger(subsystem: "test", minimumLevel: .debug) { level, message in
            lines.withLock { $0.append("\(level.name): \(message)") }
        }
        do {
            _ = try await manager.send(Traversal(), accessToken: nil)
            Issue.record("the request was sent")
        } catch NetworkError.invalidURL {
            // EKNetwork's contract: the case users catch.
        }
        let shown = base.hasPrefix("ftp") ? "ftp://files.example.com/pub?…" : base
        #expect(
            lines.withLock { $0 } == [
                "error: GET /a/../admin was not sent: NetworkError: The base URL \"\(shown)\" is invalid: \(reason)"
            ])
        let executor = RequestExecutor(transport: stub)
        let error = try await #require(throws: NetworkError.self) {
            try await executor.send(Traversal(), baseURL: URL(string: base)!)
        }
        #expect(error.description == "The base URL \"\(shown)\" is invalid: \(reason)")
        #expect(stub.requestCount == 0)
    }

    @Test("a bad path through the facade is logged once, naming its rule")
    func badPathLoggedOnce() async throws {
        let lines = Lock<[String]>([])
        let manager = NetworkManager(baseURL: stubBase, transport: StubTransport { _, _ in .status(204) })
        manager.logger = NetworkLogger(subsystem: "test", minimumLevel: .debug) { level, message in
            lines.withLock { $0.append("\(level.name): \(message)") }
        }
        await #expect(throws: NetworkError.invalidURL) { try await manager.send(Traversal(), accessToken: nil) }
        #expect(
            lines.withLock { $0 } == [
                #"error: GET /a/../admin was not sent: NetworkError: The path "/a/../admin" is invalid: it has a ".." "#
                    + "segment"
            ])
    }

    @Test("a transport failure is a URLError whose text names the kind and the host, on one line")
    func transportFailure() async throws {
        let stub = StubTransport { _, _ in
            .failure(
                TransportError(.connectionLost, host: "api.example.com", detail: "URLError -1005 networkConnectionLost")
            )
        }
        let manager = NetworkManager(baseURL: URL(string: "https://api.example.com/v1?api_key=XYZ")!, transport: stub)
        let error = try await #require(throws: URLError.self) { try await manager.send(GetUser(), accessToken: nil) }
        #expect(error.code == .networkConnectionLost)
        #expect(
            error.localizedDescription
                == "The connection to api.example.com:443 was lost (connectionLost: URLError -1005 "
                + "networkConnectionLost). The server at api.example.com:443 closed the connection; an idempotent "
                + "request is retried by its retry policy.")
        for text in texts(error) {
            #expect(
                !text.contains("\n") && !text.contains("(null)") && !text.contains("could not be completed"), "\(text)")
            #expect(text.contains("api.example.com"))
            #expect(!text.contains("XYZ") && !text.contains("api_key="))
        }
        #expect(error.errorUserInfo[NSUnderlyingErrorKey] is TransportError)
    }

    @Test(
        "a URLError that carries the failing URL is rebuilt without it, its code kept",
        arguments: [
            URLError.Code.timedOut, .cannotConnectToHost, .notConnectedToInternet, .secureConnectionFailed,
            .cannotDecodeContentData,
        ])
    func rawURLError(code: URLError.Code) async throws {
        let secret = URL(string: "https://api.example.com/v1/users/1?api_key=XYZ")!
        let raw = URLError(
            code, userInfo: [NSURLErrorFailingURLErrorKey: secret, "NSErrorFailingURLStringKey": secret.absoluteString])
        let stub = StubTransport { _, _ in .failure(raw) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let error = try await #require(throws: URLError.self) { try await manager.send(GetUser(), accessToken: nil) }
        #expect(error.code == code)
        #expect(error.failingURL == nil)
        #expect(error.errorUserInfo["NSErrorFailingURLStringKey"] == nil)
        for text in texts(error) {
            #expect(!text.contains("XYZ") && !text.contains("api_key=") && !text.contains("\n"), "\(text)")
            #expect(text.contains("api.example.com"), "\(text)")
        }
    }

    @Test("an HTML page answering a JSON request is a DecodingError naming status, content type and body start")
    func htmlForJSON() async throws {
        let page = "<!DOCTYPE html><html><body><h1>Maintenance</h1><p>Back soon.</p></body></html>"
        let stub = StubTransport { _, _ in .data(Data(page.utf8), status: 200, headers: ["Content-Type": "text/html"]) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let error = try await #require(throws: DecodingError.self) {
            try await manager.send(GetUser(), accessToken: nil)
        }
        let text = "\(error)"
        #expect(text.contains("not valid JSON"))
        #expect(
            text.contains(
                #"The response: status 200, Content-Type "text/html", \#(page.utf8.count) bytes, starting "<!DOCTYPE html>"#
            ))
        #expect(!text.contains("\n"))
        guard case .dataCorrupted(let context) = error else {
            Issue.record("not dataCorrupted: \(error)")
            return
        }
        #expect(context.codingPath.isEmpty)
    }

    @Test("a wrong JSON field names the coding path and hides secret-looking fields of the body")
    func wrongField() async throws {
        let body = #"{"id":"one","name":"ann","session_token":"s3cr3t"}"#
        let stub = StubTransport { _, _ in
            .data(Data(body.utf8), status: 200, headers: ["Content-Type": "application/json"])
        }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let error = try await #require(throws: DecodingError.self) {
            try await manager.send(GetUser(), accessToken: nil)
        }
        guard case .typeMismatch(_, let context) = error else {
            Issue.record("not typeMismatch: \(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["id"])
        let text = "\(error)"
        #expect(text.contains("id") && text.contains(#"status 200, Content-Type "application/json""#))
        #expect(!text.contains("s3cr3t"))
    }
}

/// The errors of NetKit's other modules read the same through `localizedDescription` as through `description`.
@Suite("Error texts of every module")
struct ModuleErrorTextTests {
    @Test("each error's text is one line, and localizedDescription says the same")
    func everyModule() {
        let errors: [(any Error & CustomStringConvertible, String)] = [
            (
                StubTransport.NoMatchingStub(method: .get, url: "https://api.test/v1/x?key=…", stubCount: 2),
                "No stub matched GET"
            ),
            (StubTransport.ScriptExhausted(replies: 3), "3 replies"),
            (TransportConformanceFailure(check: "methods", message: "HEAD had a body"), "methods: HEAD had a body"),
            (
                EventSourceError.reconnectLimitReached(
                    attempts: 4, lastError: TransportError(.cannotConnect, host: "h.test")), "4 failed"
            ),
            (MultipartEncodingError.boundaryInPart(name: "file", partIndex: 1), "contains the boundary"),
            (BasicAuthenticationPlugin.InvalidCredentials(), "colon"),
            (TokenRefreshError.timedOut(after: .seconds(5)), "5"),
            (NetworkError.invalidPath(path: "/a/../b", rule: .dotSegment), "/a/../b"),
            (TransportError(.timedOut, host: "h.test"), "h.test"),
        ]
        for (error, fragment) in errors {
            #expect(error.localizedDescription == error.description, "\(error)")
            #expect(error.description.contains(fragment), "\(error)")
            #expect(!error.description.contains("\n"), "\(error)")
        }
        let failures = TransportConformanceFailures(failures: [TransportConformanceFailure(check: "a", message: "b")])
        #expect(failures.localizedDescription == failures.description, "a test report: one line per failure")
    }
}
