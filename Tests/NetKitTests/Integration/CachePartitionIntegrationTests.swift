import Foundation
import LoopbackServer
import Testing
@testable import NetKit

/// Whose a response is, over real TCP on 127.0.0.1 through URLSessionTransport: the cache keeps tenants and
/// transports apart, a streamed PUT invalidates, and a request ID does not stop identical requests from sharing one
/// call.
@Suite("Cache and coalescer partitions over loopback TCP (URLSessionTransport)", .timeLimit(.minutes(10)))
struct CachePartitionIntegrationTests {
    struct GetItem: NetworkRequest {
        typealias Response = User
        var headers: [String: String]? = nil
        var path: String { "/item" }
        var method: HTTPMethod { .get }
    }

    struct PutItem: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/item" }
        var method: HTTPMethod { .put }
        var body: RequestBody? { RequestBody(encodable: User(id: 1, name: "bob")) }
    }

    /// `GET /item` answers `private, max-age=600`; anything else 204.
    static func server() throws -> LoopbackServer {
        try LoopbackServer { request in
            guard request.method == "GET" else { return LoopbackResponse(status: 204) }
            var response = LoopbackResponse.json(#"{"id":1,"name":"ann"}"#)
            response.headers.append((name: "Cache-Control", value: "private, max-age=600"))
            return response
        }
    }

    @Test("two tenants with different X-API-Key do not share a private, max-age answer")
    func tenants() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        manager.responseCache = ResponseCache(maximumBytes: 1 << 20)
        for key in ["a", "b", "a", "b"] {
            _ = try await manager.send(GetItem(headers: ["X-API-Key": key]), accessToken: nil)
        }
        #expect(server.requests.map { $0.header("X-API-Key") } == ["a", "b"])
    }

    @Test("two URLSession transports with one cache do not share an answer")
    func transports() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let cache = ResponseCache(maximumBytes: 1 << 20)
        let managers = [URLSessionTransport(), URLSessionTransport()].map { transport in
            let manager = NetworkManager(baseURL: server.baseURL, transport: transport)
            manager.responseCache = cache
            return manager
        }
        for manager in managers + managers { _ = try await manager.send(GetItem(), accessToken: nil) }
        #expect(server.requestCount == 2)
    }

    @Test("a PUT through stream() invalidates the stored GET")
    func streamedPut() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        manager.responseCache = ResponseCache(maximumBytes: 1 << 20)
        _ = try await manager.send(GetItem(), accessToken: nil)
        let stream = try await manager.stream(PutItem(), accessToken: nil)
        for try await _ in stream.chunks {}
        _ = try await manager.send(GetItem(), accessToken: nil)
        #expect(server.requests.map(\.method) == ["GET", "PUT", "GET"])
    }

    @Test("with RequestIDPlugin installed, five identical requests in flight make one server hit")
    func requestIDCoalesces() async throws {
        let gate = try LoopbackGate()
        let server = try LoopbackServer { _ in
            _ = gate.wait(timeout: .seconds(30))
            return .json(#"{"id":1,"name":"ann"}"#)
        }
        defer { server.stop() }
        let manager = NetworkManager(
            baseURL: server.baseURL, transport: URLSessionTransport(), plugins: [RequestIDPlugin()])
        manager.coalescesIdenticalRequests = true
        let coalescer = try #require(manager.makeExecutor(streaming: false).0.coalescer)
        let callers = (0..<5).map { _ in Task { try await manager.send(GetItem(), accessToken: nil) } }
        await coalescer.waitUntilWaiting(5)
        try await server.waitForRequests(1)
        gate.open()
        for caller in callers { #expect(try await caller.value == User(id: 1, name: "ann")) }
        #expect(server.requestCount == 1)
        #expect(server.requests.first?.header("X-Request-ID") != nil)
    }
}
