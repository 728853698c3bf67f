import NetKitLock
import Testing
import NetAuth

/// A refresher that counts its calls and, when gated, waits until the test opens the gate.
final class GatedRefresher: TokenRefreshProvider, Sendable {
    private let calls = Lock(0)
    private let gate: AsyncStream<Void>?
    private let openGate: AsyncStream<Void>.Continuation?
    private let entered: AsyncStream<Void>.Continuation
    /// Yields once each time a refresh starts.
    let starts: AsyncStream<Void>
    let failure: (any Error)?

    init(gated: Bool, failure: (any Error)? = nil) {
        if gated {
            let (gate, open) = AsyncStream.makeStream(of: Void.self)
            self.gate = gate
            self.openGate = open
        } else {
            self.gate = nil
            self.openGate = nil
        }
        (starts, entered) = AsyncStream.makeStream(of: Void.self)
        self.failure = failure
    }

    var callCount: Int { calls.withLock { $0 } }

    func open() { openGate?.finish() }

    func refreshTokenIfNeeded() async throws {
        calls.withLock { $0 += 1 }
        entered.yield()
        if let gate { for await _ in gate {} }
        if let failure { throw failure }
    }
}

struct Refused: Error, Equatable {}

@Suite("Single-flight token refresh")
struct TokenRefreshCoordinatorTests {
    /// Reports the coordinator's waiting count, so a test can open the refresh only once every request joined it.
    func observe(_ coordinator: TokenRefreshCoordinator) async -> AsyncStream<Int> {
        let (counts, report) = AsyncStream.makeStream(of: Int.self)
        await coordinator.setWaitingCountObserver { report.yield($0) }
        return counts
    }

    @Test("100 concurrent waiters join one refresh in flight")
    func oneRefreshForMany() async throws {
        let refresher = GatedRefresher(gated: true)
        let coordinator = TokenRefreshCoordinator(refresher: refresher)
        let counts = await observe(coordinator)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 { group.addTask { try await coordinator.recover(fromUnauthorizedAt: 0) } }
            for await count in counts where count == 100 { break }
            #expect(await coordinator.isRefreshing)
            refresher.open()
            try await group.waitForAll()
        }
        #expect(refresher.callCount == 1)
        #expect(await coordinator.generation() == 1)
        #expect(await coordinator.waitingCount == 0)
    }

    @Test("a 401 from before the last refresh returns at once without refreshing")
    func staleCredential() async throws {
        let refresher = GatedRefresher(gated: false)
        let coordinator = TokenRefreshCoordinator(refresher: refresher)
        try await coordinator.recover(fromUnauthorizedAt: 0)
        try await coordinator.recover(fromUnauthorizedAt: 0)
        #expect(refresher.callCount == 1)
        try await coordinator.recover(fromUnauthorizedAt: 1)
        #expect(refresher.callCount == 2)
    }

    @Test("a failed refresh reaches every waiter and late 401s sent before it; a request sent after it may try again")
    func failureForAll() async throws {
        let refresher = GatedRefresher(gated: true, failure: Refused())
        let coordinator = TokenRefreshCoordinator(refresher: refresher)
        let counts = await observe(coordinator)
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    do {
                        try await coordinator.recover(fromUnauthorizedAt: 0)
                        return false
                    } catch { return error is Refused }
                }
            }
            for await count in counts where count == 20 { break }
            refresher.open()
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.allSatisfy { $0 })
        #expect(outcomes.count == 20)
        #expect(refresher.callCount == 1)
        #expect(await coordinator.generation() == 1)
        await #expect(throws: Refused()) { try await coordinator.recover(fromUnauthorizedAt: 0) }
        #expect(refresher.callCount == 1)
        await #expect(throws: Refused()) { try await coordinator.recover(fromUnauthorizedAt: 1) }
        #expect(refresher.callCount == 2)
    }

    @Test("cancelling the waiter that started the refresh leaves it running for the others")
    func cancelledWaiter() async throws {
        let refresher = GatedRefresher(gated: true)
        let coordinator = TokenRefreshCoordinator(refresher: refresher)
        let first = Task { try await coordinator.recover(fromUnauthorizedAt: 0) }
        var starts = refresher.starts.makeAsyncIterator()
        await starts.next()
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(await coordinator.isRefreshing)
        #expect(await coordinator.waitingCount == 0)

        let second = Task { try await coordinator.recover(fromUnauthorizedAt: 0) }
        refresher.open()
        try await second.value
        #expect(refresher.callCount == 1)
        #expect(await coordinator.generation() == 1)
        #expect(await coordinator.waitingCount == 0)
    }
}
