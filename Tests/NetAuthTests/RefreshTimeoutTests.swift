import NetKitLock
import Testing
@testable import NetAuth

/// A refresh timeout that the test fires by hand, and that says when it was cancelled.
final class ManualTimeout: Sendable {
    private struct State {
        var pending: [Int: CheckedContinuation<Void, any Error>] = [:]
        var next = 0
        var cancelled = 0
    }

    private let state = Lock(State())
    private let (events, report) = AsyncStream.makeStream(of: String.self)

    /// `"started"` each time a timer starts, `"cancelled"` each time one is cancelled before it fired.
    var changes: AsyncStream<String> { events }

    var cancelledCount: Int { state.withLock { $0.cancelled } }

    /// The `sleep` a coordinator waits out its timeout with.
    func sleep(_: Duration) async throws {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state in
                    if Task.isCancelled {
                        state.cancelled += 1
                        return true
                    }
                    state.pending[id] = continuation
                    return false
                }
                // Told once the timer can be fired.
                report.yield("started")
                if cancelled {
                    report.yield("cancelled")
                    continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let continuation = state.withLock { state in
                let continuation = state.pending.removeValue(forKey: id)
                if continuation != nil { state.cancelled += 1 }
                return continuation
            }
            if let continuation {
                report.yield("cancelled")
                continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Fires every timer that is waiting.
    func fire() {
        let waiting = state.withLock { state in
            defer { state.pending.removeAll() }
            return Array(state.pending.values)
        }
        for continuation in waiting { continuation.resume() }
    }
}

/// A refresher that ignores cancellation, waits for the test to release each call, and records how many calls
/// ran at once.
final class StubbornRefresher: Sendable {
    private struct State {
        var running = 0
        var mostAtOnce = 0
        var calls = 0
        var gates: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Lock(State())
    private let (entries, entered) = AsyncStream.makeStream(of: Int.self)

    /// The number of each call as it starts.
    var starts: AsyncStream<Int> { entries }
    var mostAtOnce: Int { state.withLock { $0.mostAtOnce } }

    func refresh() async {
        await withCheckedContinuation { (gate: CheckedContinuation<Void, Never>) in
            let number = state.withLock { state in
                state.running += 1
                state.calls += 1
                state.mostAtOnce = max(state.mostAtOnce, state.running)
                state.gates.append(gate)
                return state.calls
            }
            entered.yield(number)
        }
        state.withLock { $0.running -= 1 }
    }

    /// Lets the oldest call still waiting return.
    func releaseOldest() {
        let gate = state.withLock { state in state.gates.isEmpty ? nil : state.gates.removeFirst() }
        gate?.resume()
    }
}

// A hang is what these bugs looked like: the time limit turns it into a failure.
@Suite("Token refresh timeout", .timeLimit(.minutes(10)))
struct RefreshTimeoutTests {
    func coordinator(
        timeout: ManualTimeout, refresh: @escaping @Sendable () async throws -> Void
    ) -> TokenRefreshCoordinator {
        let configuration = TokenRefreshCoordinator.Configuration(
            policy: TokenRefreshPolicy(maxRefreshes: 10, timeout: .seconds(30)), line: nil)
        return TokenRefreshCoordinator(
            configuration: { configuration }, sleep: { try await timeout.sleep($0) }, refresh: refresh)
    }

    @Test(
        "after a timeout, the next refresh waits for the stubborn one to return: the refresher never runs twice at once"
    )
    func noOverlapAfterTimeout() async throws {
        let timeout = ManualTimeout()
        let refresher = StubbornRefresher()
        let coordinator = coordinator(timeout: timeout) { await refresher.refresh() }
        var starts = refresher.starts.makeAsyncIterator()
        var timers = timeout.changes.makeAsyncIterator()

        let first = Task { try await coordinator.recover(fromUnauthorizedAt: 0) }
        #expect(await starts.next() == 1)
        #expect(await timers.next() == "started")
        timeout.fire()
        await #expect(throws: TokenRefreshError.timedOut(after: .seconds(30))) { try await first.value }

        // A request sent after the timed-out refresh starts a new one while the first call still runs.
        let generation = await coordinator.generation()
        let second = Task { try await coordinator.recover(fromUnauthorizedAt: generation) }
        #expect(await timers.next() == "started")
        #expect(await coordinator.isRefreshing)
        // The first call returns; only then is the refresher entered again.
        refresher.releaseOldest()
        #expect(await starts.next() == 2)
        refresher.releaseOldest()
        try await second.value
        #expect(refresher.mostAtOnce == 1)
    }

    @Test("a refresh that succeeds cancels its timeout's timer at once: nothing of it lingers")
    func timerEndsWithRefresh() async throws {
        let timeout = ManualTimeout()
        let coordinator = coordinator(timeout: timeout) {}
        var timers = timeout.changes.makeAsyncIterator()
        try await coordinator.recover(fromUnauthorizedAt: 0)
        #expect(await timers.next() == "started")
        #expect(await timers.next() == "cancelled")
        #expect(timeout.cancelledCount == 1)
    }
}
