import Foundation
import LoopbackServer
import NetKitLock
import Testing
import NetKit

/// The response cache over real TCP on 127.0.0.1, through URLSession (whose own URLCache must neither answer
/// NetKit's conditional requests nor swallow their 304s).
@Suite("Response cache over loopback TCP")
struct ResponseCacheIntegrationTests {
    struct GetItem: NetworkRequest {
        typealias Response = User
        var path: String { "/item" }
        var method: HTTPMethod { .get }
    }

    /// `/item` with `ETag: "v1"`: 304 (with `X-Version: <n>`) to a request whose `If-None-Match` names it, the full
    /// item otherwise; counts the conditional requests it answered with 304.
    final class ItemServer: Sendable {
        final class Counter: Sendable {
            let value = Lock(0)
        }

        let notModified = Counter()
        let server: LoopbackServer

        init(extra: [(name: String, value: String)] = []) throws {
            let notModified = self.notModified
            server = try LoopbackServer { request in
                let count = notModified.value.withLock { count -> Int in
                    if request.header("If-None-Match") == #""v1""# { count += 1 }
                    return count
                }
                let headers = [(name: "ETag", value: #""v1""#), (name: "X-Version", value: String(count))] + extra
                if request.header("If-None-Match") == #""v1""# {
                    return LoopbackResponse(status: 304, headers: headers)
                }
                var response = LoopbackResponse.json(#"{"id":1,"name":"ann"}"#)
                response.headers += headers
                return response
            }
        }

        var conditionalRequests: Int { notModified.value.withLock { $0 } }
    }

    @Test("three GETs of an endpoint with an ETag: one full 200, then two conditional requests answered 304")
    func revalidation() async throws {
        let items = try ItemServer()
        defer { items.server.stop() }
        let manager = NetworkManager(baseURL: items.server.baseURL)
        manager.responseCache = ResponseCache(maximumBytes: 1 << 20)
        var responses: [NetworkResponse<User>] = []
        for _ in 0..<3 { responses.append(try await manager.response(for: GetItem(), accessToken: nil)) }
        #expect(items.server.requestCount == 3)
        #expect(items.conditionalRequests == 2)
        #expect(items.server.requests.map { $0.header("If-None-Match") } == [nil, #""v1""#, #""v1""#])
        #expect(responses.map(\.value) == Array(repeating: User(id: 1, name: "ann"), count: 3))
        #expect(responses.map(\.statusCode) == [200, 200, 200])
        #expect(
            responses.map { $0.headerFields.value(for: "X-Version") } == ["0", "1", "2"],
            "the 304's headers reach the caller")
    }

    @Test("without a cache nothing is conditional: three full 200s")
    func withoutCache() async throws {
        let items = try ItemServer()
        defer { items.server.stop() }
        let manager = NetworkManager(baseURL: items.server.baseURL)
        for _ in 0..<3 { _ = try await manager.send(GetItem(), accessToken: nil) }
        #expect(items.conditionalRequests == 0)
        #expect(items.server.requestCount == 3)
    }

    @Test("a fresh response answers without a request; the token keeps responses apart")
    func freshAndAuthorization() async throws {
        let items = try ItemServer(extra: [(name: "Cache-Control", value: "max-age=600")])
        defer { items.server.stop() }
        let manager = NetworkManager(baseURL: items.server.baseURL)
        manager.responseCache = ResponseCache(maximumBytes: 1 << 20)
        for _ in 0..<3 { _ = try await manager.send(GetItem(), accessToken: { "ann" }) }
        _ = try await manager.send(GetItem(), accessToken: { "bob" })
        #expect(items.server.requests.map { $0.header("Authorization") } == ["Bearer ann", "Bearer bob"])
    }
}
