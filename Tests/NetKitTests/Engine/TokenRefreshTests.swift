import Foundation
import Synchronization
import Testing
import NetKit
import NetKitTesting

@Suite("401 → refresh → retry once, over the stub transport")
struct TokenRefreshTests {
    /// Answers 401 unless the request carries a token the refresher obtained (the first one has expired).
    func authorizingStub(_ refresher: CountingRefresher) -> StubTransport {
        StubTransport { request, _ in
            refresher.refreshes > 0 && request.value(forHeader: "Authorization") == "Bearer \(refresher.token)"
                ? .json(#"{"id":1,"name":"ann"}"#) : .status(401)
        }
    }

    @Test("a 401 refreshes once and the retry carries the new token")
    func refreshAndRetry() async throws {
        let refresher = CountingRefresher()
        let stub = StubTransport { request, index in
            index == 0 ? .status(401) : .json(#"{"id":1,"name":"ann"}"#)
        }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.tokenRefresher = refresher
        let user = try await manager.send(GetUser(), accessToken: { refresher.token })
        #expect(user.id == 1)
        #expect(refresher.refreshes == 1)
        #expect(stub.requests.map(\.bearer) == ["Bearer token-0", "Bearer token-1"])
    }

    @Test("a second 401 after the refresh is NetworkError.unauthorized, with no second refresh")
    func retryOnce() async throws {
        let refresher = CountingRefresher()
        let stub = StubTransport { _, _ in .status(401) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.tokenRefresher = refresher
        await #expect(throws: NetworkError.unauthorized) {
            try await manager.send(GetUser(), accessToken: { refresher.token })
        }
        #expect(refresher.refreshes == 1)
        #expect(stub.requestCount == 2)
    }

    @Test("without a refresher, or with allowsRetry == false, a 401 is unauthorized at once")
    func noRefresh() async throws {
        let stub = StubTransport { _, _ in .status(401) }
        await #expect(throws: NetworkError.unauthorized) {
            try await NetworkManager(baseURL: stubBase, transport: stub).send(GetUser(), accessToken: nil)
        }
        let refresher = CountingRefresher()
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.tokenRefresher = refresher
        await #expect(throws: NetworkError.unauthorized) {
            try await manager.send(GetUser(allowsRetry: false), accessToken: nil)
        }
        #expect(refresher.refreshes == 0)
        #expect(stub.requestCount == 2)
    }

    @Test("a failed refresh reaches the caller and is not retried")
    func failedRefresh() async throws {
        let refresher = CountingRefresher(failure: RefreshFailed())
        let stub = authorizingStub(refresher)
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.tokenRefresher = refresher
        await #expect(throws: RefreshFailed()) {
            try await manager.send(GetUser(retries: 5), accessToken: { "expired" })
        }
        #expect(refresher.refreshes == 1)
        #expect(stub.requestCount == 1)
    }

    @Test("50 concurrent 401s join one refresh in flight and all succeed")
    func singleFlight() async throws {
        let gate = RefreshGate()
        let stub = StubTransport { request, _ in
            request.value(forHeader: "Authorization") == "Bearer fresh"
                ? .json(#"{"id":1,"name":"ann"}"#) : .status(401)
        }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.tokenRefresher = gate
        let coordinator = try #require(manager.tokenRefreshCoordinator)
        let (counts, report) = AsyncStream.makeStream(of: Int.self)
        await coordinator.setWaitingCountObserver { report.yield($0) }
        let users = try await withThrowingTaskGroup(of: User.self) { group in
            for id in 0..<50 { group.addTask { try await manager.send(GetUser(id: id), accessToken: { gate.token }) } }
            // Every request is parked on the one refresh before it is allowed to finish.
            for await count in counts where count == 50 { break }
            gate.open()
            return try await group.reduce(into: [User]()) { $0.append($1) }
        }
        #expect(users.count == 50)
        #expect(gate.refreshes == 1)
        #expect(stub.requests.filter { $0.bearer == "Bearer expired" }.count == 50)
        #expect(stub.requests.filter { $0.bearer == "Bearer fresh" }.count == 50)
    }

    @Test("a refresher that sends through the same manager does not deadlock")
    func refresherUsesManager() async throws {
        let stub = StubTransport { request, _ in
            if request.url?.path == "/v1/auth/refresh" { return .json(#"{"accessToken":"new"}"#) }
            return request.value(forHeader: "Authorization") == "Bearer new"
                ? .json(#"{"id":7,"name":"x"}"#) : .status(401)
        }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let refresher = ManagerTokenStore(manager: manager)
        manager.tokenRefresher = refresher
        let user = try await manager.send(GetUser(id: 7), accessToken: { refresher.current })
        #expect(user.id == 7)
        #expect(stub.requests.map { $0.url?.path } == ["/v1/users/7", "/v1/auth/refresh", "/v1/users/7"])
    }

    @Test("a refresh request that itself gets 401 fails instead of waiting for itself")
    func refreshRequestUnauthorized() async throws {
        final class LoopingRefresher: TokenRefreshProvider, Sendable {
            let manager: NetworkManager
            init(manager: NetworkManager) { self.manager = manager }
            func refreshTokenIfNeeded() async throws {
                _ = try await manager.send(GetUser(id: 99), accessToken: nil)
            }
        }
        let stub = StubTransport { _, _ in .status(401) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.tokenRefresher = LoopingRefresher(manager: manager)
        await #expect(throws: NetworkError.unauthorized) { try await manager.send(GetUser(), accessToken: nil) }
        #expect(stub.requestCount == 2)
    }
}
