import NetKitLock

/// A clock that does not sleep: it records every wait asked of it and returns at once, so retry timing is
/// checked without slowing the tests.
final class RecordingClock: Clock, Sendable {
    typealias Instant = ContinuousClock.Instant
    typealias Duration = Swift.Duration

    private let waits = Lock<[Duration]>([])

    var now: Instant { .now }
    var minimumResolution: Duration { .nanoseconds(1) }

    /// The waits asked for, in order.
    var recorded: [Duration] { waits.withLock { $0 } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        waits.withLock { $0.append(max(.zero, deadline - .now)) }
    }
}
