import Foundation
import LoopbackServer
import Testing
@testable import NetKit

/// Coalescing over real TCP on 127.0.0.1, through URLSession. The server holds its answer at a gate until the
/// callers are known to wait for the shared call, so "in flight at the same time" does not depend on timing.
@Suite("Coalescing over loopback TCP", .timeLimit(.minutes(10)))
struct CoalescingIntegrationTests {
    struct GetItem: NetworkRequest {
        typealias Response = User
        var path: String { "/item" }
        var method: HTTPMethod { .get }
    }

    /// A server whose every answer waits for `gate`.
    static func server(_ gate: LoopbackGate) throws -> LoopbackServer {
        try LoopbackServer { _ in
            _ = gate.wait(timeout: .seconds(30))
            return .json(#"{"id":1,"name":"ann"}"#)
        }
    }

    static func manager(_ server: LoopbackServer) throws -> (NetworkManager, RequestCoalescer) {
        let manager = NetworkManager(baseURL: server.baseURL)
        manager.coalescesIdenticalRequests = true
        return (manager, try #require(manager.makeExecutor(streaming: false).0.coalescer))
    }

    @Test("ten coalesced callers, one server hit, ten values")
    func tenCallersOneHit() async throws {
        let gate = try LoopbackGate()
        let server = try Self.server(gate)
        defer { server.stop() }
        let (manager, coalescer) = try Self.manager(server)
        let callers = (0..<10).map { _ in Task { try await manager.send(GetItem(), accessToken: { "tok" }) } }
        await coalescer.waitUntilWaiting(10)
        try await server.waitForRequests(1)
        gate.open()
        for caller in callers { #expect(try await caller.value == User(id: 1, name: "ann")) }
        #expect(server.requestCount == 1)
        #expect(server.requests.first?.header("Authorization") == "Bearer tok")
    }

    @Test("one of several coalesced callers is cancelled, the one that started the call, while the others succeed")
    func oneCancelled() async throws {
        let gate = try LoopbackGate()
        let server = try Self.server(gate)
        defer { server.stop() }
        let (manager, coalescer) = try Self.manager(server)
        let starter = Task { try await manager.send(GetItem(), accessToken: nil) }
        await coalescer.waitUntilWaiting(1)
        let others = (0..<4).map { _ in Task { try await manager.send(GetItem(), accessToken: nil) } }
        await coalescer.waitUntilWaiting(5)
        try await server.waitForRequests(1)
        starter.cancel()
        await #expect(throws: CancellationError.self) { try await starter.value }
        gate.open()
        for other in others { #expect(try await other.value == User(id: 1, name: "ann")) }
        #expect(server.requestCount == 1)
        #expect(server.clientAbortedResponses == 0, "the shared call was not cancelled")
    }
}
