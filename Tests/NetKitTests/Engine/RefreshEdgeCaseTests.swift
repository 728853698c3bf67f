import Foundation
import Testing
import NetKit
import NetKitTesting

@Suite("Refresh edge cases over the stub transport")
struct RefreshEdgeCaseTests {
    /// Answers 401 unless the request carries the token `RefreshGate` hands out once opened.
    func acceptingOnlyFreshToken() -> StubTransport {
        StubTransport { request, _ in
            request.value(forHeader: "Authorization") == "Bearer fresh"
                ? .json(#"{"id":1,"name":"ann"}"#) : .status(401)
        }
    }

    @Test("a server that rejects every fresh token stops at the refresh window instead of looping")
    func windowExhausted() async throws {
        let refresher = CountingRefresher()
        let stub = StubTransport { _, _ in .status(401) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.tokenRefreshPolicy = TokenRefreshPolicy(maxRefreshes: 2, interval: .seconds(3600))
        manager.tokenRefresher = refresher
        for _ in 0..<2 {
            await #expect(throws: NetworkError.unauthorized) {
                try await manager.send(GetUser(), accessToken: { refresher.token })
            }
        }
        await #expect(throws: TokenRefreshError.refreshLimitExceeded(limit: 2, interval: .seconds(3600))) {
            try await manager.send(GetUser(), accessToken: { refresher.token })
        }
        #expect(refresher.refreshes == 2)
        #expect(stub.requestCount == 5)
    }

    @Test("cancelling one waiting request leaves the refresh and the other waiter unharmed")
    func oneWaiterCancelled() async throws {
        let gate = RefreshGate()
        let stub = acceptingOnlyFreshToken()
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.tokenRefresher = gate
        let coordinator = try #require(manager.tokenRefreshCoordinator)
        let (counts, report) = AsyncStream.makeStream(of: Int.self)
        await coordinator.setWaitingCountObserver { report.yield($0) }
        let first = Task { try await manager.send(GetUser(id: 1), accessToken: { gate.token }) }
        await gate.waitUntilRefreshStarts()
        let second = Task { try await manager.send(GetUser(id: 2), accessToken: { gate.token }) }
        for await count in counts where count == 2 { break }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(await coordinator.waitingCount == 1)
        gate.open()
        #expect(try await second.value.id == 1)
        #expect(gate.refreshes == 1)
        #expect(await coordinator.waitingCount == 0)
    }

    @Test("the stream road: a 401 before the first byte refreshes once and hands over the unread body")
    func streamRoad() async throws {
        let refresher = CountingRefresher()
        let stub = StubTransport { request, _ in
            request.value(forHeader: "Authorization") == "Bearer token-1"
                ? StubTransport.Reply(status: 200, chunks: [Data("data: a\n".utf8), Data("data: b\n".utf8)])
                : .status(401)
        }
        let executor = RequestExecutor(transport: stub)
        let coordinator = TokenRefreshCoordinator(refresher: refresher)
        let credentials = BearerTokenCredentials(token: CallerIsolated({ refresher.token }), recovery: coordinator)
        let (response, metrics) = try await executor.streamingResponse(
            for: GetUser(), baseURL: stubBase, credentials: credentials)
        #expect(response.statusCode == 200)
        #expect(metrics.attempts == 2)
        var chunks: [Data] = []
        for try await chunk in response.body { chunks.append(chunk) }
        #expect(chunks.count == 2)
        #expect(refresher.refreshes == 1)
    }

    @Test("with holdsRequestsDuringRefresh, a request that starts during the refresh goes out with the new token")
    func heldDuringRefresh() async throws {
        let gate = RefreshGate()
        let stub = acceptingOnlyFreshToken()
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.holdsRequestsDuringRefresh = true
        manager.tokenRefresher = gate
        let (counts, report) = AsyncStream.makeStream(of: Int.self)
        manager.requestLine.setWaitingCountObserver { report.yield($0) }
        let first = Task { try await manager.send(GetUser(id: 1), accessToken: { gate.token }) }
        await gate.waitUntilRefreshStarts()
        let late = Task { try await manager.send(GetUser(id: 2), accessToken: { gate.token }) }
        for await count in counts where count == 1 { break }
        gate.open()
        _ = try await first.value
        _ = try await late.value
        #expect(stub.requests.filter { $0.url?.path == "/v1/users/2" }.map(\.bearer) == ["Bearer fresh"])
        #expect(gate.refreshes == 1)
    }
}
