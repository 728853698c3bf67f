import Foundation
import LoopbackServer
import NetKitLock
import Testing
import NetKit

/// A reconnecting event source after the manager's `tokenRefresher` renewed the token: every connection from then
/// on carries the new one.
@Suite("Event source reconnects after a token renewal")
struct EventSourceRenewalTests {
    /// Renews `t1` into `t2`, as an app's token manager would, and says which token is current.
    final class Renewer: TokenRefreshProvider, CurrentTokenProviding, Sendable {
        let token = Lock("t1")
        let renewals = Lock(0)
        var current: String { token.withLock { $0 } }

        func refreshTokenIfNeeded() async throws {
            renewals.withLock { $0 += 1 }
            token.withLock { $0 = "t2" }
        }

        func currentAccessToken() -> String? { current }
    }

    /// Renews `t1` into `t2` and says nothing more, as EKNetwork's refreshers do.
    final class PlainRenewer: TokenRefreshProvider, Sendable {
        let token = Lock("t1")
        var current: String { token.withLock { $0 } }

        func refreshTokenIfNeeded() async throws {
            token.withLock { $0 = "t2" }
        }
    }

    /// The first connection is accepted with `t1` and dropped after an event; from then on only `t2` is accepted
    /// (401 otherwise); the second accepted connection is dropped after an event too, and the next gets 204.
    static func server() throws -> LoopbackServer {
        let accepted = Lock(0)
        return try LoopbackServer { request in
            let authorization = request.header("Authorization")
            let number: Int? = accepted.withLock { count in
                let expected = count == 0 ? "Bearer t1" : "Bearer t2"
                guard authorization == expected else { return nil }
                count += 1
                return count
            }
            guard let number else { return .text("expired", status: 401) }
            guard number < 3 else { return LoopbackResponse(status: 204) }
            return .streamed(headers: [(name: "Content-Type", value: "text/event-stream")]) { writer in
                _ = writer.write("retry: 5\ndata: \(number)\n\n")
                writer.abort()
            }
        }
    }

    /// The `Authorization` of every request the server saw, in order.
    static func authorizations(_ server: LoopbackServer) -> [String] {
        server.requests.map { $0.header("Authorization") ?? "-" }
    }

    static let expected = ["Bearer t1", "Bearer t1", "Bearer t2", "Bearer t2"]

    @Test("accessToken read on the caller's actor: the reconnect after the renewal carries the new token")
    @MainActor
    func accessTokenOnActor() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        let renewer = Renewer()
        manager.tokenRefresher = renewer
        var data: [String] = []
        for try await event in manager.eventSource(Notifications(), accessToken: { renewer.current }, policy: .quick) {
            data.append(event.data)
        }
        #expect(data == ["1", "2"])
        #expect(Self.authorizations(server) == Self.expected)
        #expect(renewer.renewals.withLock { $0 } == 1)
    }

    @Test("accessToken outside any actor: the reconnect after the renewal carries the refresher's new token")
    func accessTokenOutsideAnyActor() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        let renewer = Renewer()
        manager.tokenRefresher = renewer
        var data: [String] = []
        for try await event in manager.eventSource(Notifications(), accessToken: { renewer.current }, policy: .quick) {
            data.append(event.data)
        }
        #expect(data == ["1", "2"])
        #expect(Self.authorizations(server) == Self.expected)
        #expect(renewer.renewals.withLock { $0 } == 1)
    }

    @Test("tokenProvider: the reconnect after the renewal carries the new token")
    func tokenProvider() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        let renewer = Renewer()
        manager.tokenRefresher = renewer
        var data: [String] = []
        for try await event in manager.eventSource(Notifications(), tokenProvider: { renewer.current }, policy: .quick)
        {
            data.append(event.data)
        }
        #expect(data == ["1", "2"])
        #expect(Self.authorizations(server) == Self.expected)
        #expect(renewer.renewals.withLock { $0 } == 1)
    }

    @Test("accessToken outside any actor, a refresher that cannot say its token: the source ends saying why")
    func accessTokenOutsideAnyActorWithoutCurrentToken() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        let renewer = PlainRenewer()
        manager.tokenRefresher = renewer
        var data: [String] = []
        let error = await #expect(throws: RenewedTokenUnavailable.self) {
            for try await event in manager.eventSource(
                Notifications(), accessToken: { renewer.current }, policy: .quick)
            {
                data.append(event.data)
            }
        }
        #expect(data == ["1"])
        #expect(Self.authorizations(server) == ["Bearer t1", "Bearer t1"], "the rejected token is not sent again")
        #expect(error?.localizedDescription.contains("eventSource(_:tokenProvider:)") == true)
    }
}
