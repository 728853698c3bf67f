import Synchronization

/// A clock whose time moves only when something sleeps on it: a sleep returns at once, moves `now` to its deadline
/// and records how long it asked for, so a test checks a `Retry-After` wait without waiting.
final class ManualClock: Clock, Sendable {
    typealias Instant = ContinuousClock.Instant

    private struct State {
        var now: Instant
        var sleeps: [Duration] = []
    }

    private let state = Mutex(State(now: ContinuousClock.now))

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .nanoseconds(1) }

    /// Every sleep asked for, in order.
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(max(.zero, deadline - state.now))
            state.now = max(state.now, deadline)
        }
    }
}
