import Foundation
import NetCore
import NetKitLock
import Testing

/// The engine tells a transport, hop by hop, whether the credentials it holds of its own (a URLSession
/// configuration's header fields) may go: only at origins the credential scope allows.
@Suite("Transport credentials follow the credential scope")
struct TransportCredentialsTests {
    struct Get: Endpoint {
        typealias Response = Data
        var path: String
        var method: HTTPMethod { .get }
        var baseURL: URL?
    }

    /// Answers `/a` with a redirect to another origin's `/b`, that with a redirect back to `/c`, and `/c` with 200;
    /// notes each hop's path and what it was told.
    final class Hops: HTTPTransport {
        let seen = Lock<[String]>([])

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let path = request.head.pathWithoutQuery
            seen.withLock { $0.append("\(path) \(request.allowsTransportCredentials)") }
            let location: String? =
                switch path {
                case "/a": "https://elsewhere.example/b"
                case "/b": "https://api.example.com/c"
                default: nil
                }
            guard let location else { return TransportResponse(head: HTTPResponseHead(statusCode: 200), body: .empty) }
            return TransportResponse(
                head: HTTPResponseHead(statusCode: 302, headerFields: try HTTPHeaderFields(["Location": location])),
                body: .empty)
        }
    }

    @Test("allowed at the base URL's origin, refused elsewhere, allowed again back at the base")
    func redirectChain() async throws {
        let transport = Hops()
        let engine = RequestExecutor(transport: transport)
        _ = try await engine.send(Get(path: "/a"), baseURL: try #require(URL(string: "https://api.example.com")))
        #expect(transport.seen.withLock { $0 } == ["/a true", "/b false", "/c true"])
    }

    @Test("refused for a request built for another origin than the base URL's")
    func requestToAnotherOrigin() async throws {
        let transport = Hops()
        let engine = RequestExecutor(transport: transport)
        _ = try await engine.send(
            Get(path: "/c", baseURL: URL(string: "https://elsewhere.example")),
            baseURL: try #require(URL(string: "https://api.example.com")))
        #expect(transport.seen.withLock { $0 } == ["/c false"])
    }

    @Test("a request made without the engine allows them")
    func withoutEngine() throws {
        let url = try #require(URL(string: "https://a.example"))
        #expect(TransportRequest(head: try HTTPRequestHead(url: url)).allowsTransportCredentials)
    }
}
