import Foundation
import LoopbackServer
import NetKitLock
import Testing
import NetKit

/// Where an event source reads its token: a closure that is not `Sendable` is only ever called where its owner
/// runs.
@Suite("Event source tokens")
struct EventSourceTokenTests {
    /// Not `Sendable`: a plain class, as app code keeps its session.
    final class Session {
        var token = "t1"
        var reads = 0
    }

    /// The `Authorization` of each connection, in order.
    final class Seen: Sendable {
        let authorizations = Lock<[String]>([])
        var all: [String] { authorizations.withLock { $0 } }
    }

    /// Three connections: two dropped after an event, then 204.
    func server(recording seen: Seen) throws -> LoopbackServer {
        let connection = Lock(0)
        return try LoopbackServer { request in
            seen.authorizations.withLock { $0.append(request.header("Authorization") ?? "") }
            let number = connection.withLock {
                $0 += 1
                return $0
            }
            guard number < 3 else { return LoopbackResponse(status: 204) }
            return .streamed(headers: [(name: "Content-Type", value: "text/event-stream")]) { writer in
                _ = writer.write("retry: 5\ndata: \(number)\n\n")
                writer.abort()
            }
        }
    }

    @Test("outside any actor, accessToken is read once when the source is made, and never from the source's task")
    func nonisolatedReadsOnce() async throws {
        let seen = Seen()
        let server = try server(recording: seen)
        defer { server.stop() }
        let session = Session()
        let source = NetworkManager(baseURL: server.baseURL).eventSource(
            Notifications(),
            accessToken: {
                session.reads += 1
                return session.token
            }, policy: .quick)
        // Before the fix the source kept the closure and called it from its own task on each connection, while
        // this code, its owner, may touch the same object.
        #expect(session.reads == 1)
        session.token = "t2"
        var data: [String] = []
        for try await event in source { data.append(event.data) }
        #expect(data == ["1", "2"])
        #expect(session.reads == 1)
        #expect(seen.all == ["Bearer t1", "Bearer t1", "Bearer t1"])
    }

    @Test("on an actor, accessToken is read afresh on that actor for each connection")
    @MainActor
    func isolatedReadsEachConnection() async throws {
        let seen = Seen()
        let server = try server(recording: seen)
        defer { server.stop() }
        let session = Session()
        let source = NetworkManager(baseURL: server.baseURL).eventSource(
            Notifications(),
            accessToken: {
                MainActor.assertIsolated()
                session.reads += 1
                return "t\(session.reads)"
            }, policy: .quick)
        #expect(session.reads == 0)
        for try await _ in source {}
        #expect(session.reads == 3)
        #expect(seen.all == ["Bearer t1", "Bearer t2", "Bearer t3"])
    }

    @Test("tokenProvider is read afresh for each connection from any task")
    func tokenProvider() async throws {
        let seen = Seen()
        let server = try server(recording: seen)
        defer { server.stop() }
        let reads = Lock(0)
        let source = NetworkManager(baseURL: server.baseURL).eventSource(
            Notifications(),
            tokenProvider: {
                let count = reads.withLock {
                    $0 += 1
                    return $0
                }
                return "p\(count)"
            }, policy: .quick)
        for try await _ in source {}
        #expect(seen.all == ["Bearer p1", "Bearer p2", "Bearer p3"])
    }
}
