import NetKitLock

/// A clock whose time moves only when something sleeps on it: each sleep records its wait and moves the clock on by
/// it at once, so reconnection waits are counted in clock time, never in wall time. A sleep that would take the
/// clock past `budget` throws ``BudgetSpent`` instead, which ends the loop that slept.
final class VirtualClock: Clock, Sendable {
    typealias Instant = ContinuousClock.Instant
    typealias Duration = Swift.Duration

    /// Thrown by a sleep that would pass the budget.
    struct BudgetSpent: Error {}

    private let origin = ContinuousClock.now
    private let state = Lock<(elapsed: Duration, waits: [Duration])>((.zero, []))
    /// The most clock time the sleeps may take together.
    let budget: Duration

    init(budget: Duration = .seconds(86_400)) {
        self.budget = budget
    }

    var now: Instant { origin + state.withLock { $0.elapsed } }
    var minimumResolution: Duration { .nanoseconds(1) }

    /// The waits slept, in order.
    var waits: [Duration] { state.withLock { $0.waits } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        try state.withLock { state throws(BudgetSpent) in
            let wait = max(.zero, deadline - (origin + state.elapsed))
            guard state.elapsed + wait <= budget else { throw BudgetSpent() }
            state.elapsed += wait
            state.waits.append(wait)
        }
    }
}
