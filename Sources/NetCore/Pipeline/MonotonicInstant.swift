/// An instant on the continuous clock, held as its distance from one fixed instant of the process: how NetCore's
/// values store an instant.
///
/// `ContinuousClock.Instant` is not frozen, so outside the standard library its size is known only at run time.
/// Every value that stored one (a response, the metrics, an exchange, the road) was copied, moved and destroyed
/// through its type's metadata, and every async function that held one allocated room for it on the task's stack
/// while it ran: about 20 allocations and 360 metadata lookups on the road of one request. A `Duration` is frozen,
/// so a value that stores this instead has a size the compiler knows. The conversions both ways are exact.
package struct MonotonicInstant: Sendable, Hashable, Comparable {
    /// The instant every other one is measured from: the first one taken in the process.
    private static let origin = ContinuousClock.now

    /// The distance from ``origin``; negative for an instant before it.
    private let sinceOrigin: Duration

    /// `instant`, stored.
    package init(_ instant: ContinuousClock.Instant) {
        sinceOrigin = Self.origin.duration(to: instant)
    }

    private init(sinceOrigin: Duration) {
        self.sinceOrigin = sinceOrigin
    }

    /// Now.
    package static var now: MonotonicInstant { MonotonicInstant(.now) }

    /// The instant, as the clock's own type.
    package var instant: ContinuousClock.Instant { Self.origin.advanced(by: sinceOrigin) }

    package static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.sinceOrigin < rhs.sinceOrigin
    }

    /// The instant `duration` after `instant`.
    package static func + (instant: MonotonicInstant, duration: Duration) -> MonotonicInstant {
        MonotonicInstant(sinceOrigin: instant.sinceOrigin + duration)
    }

    /// The time from `rhs` to `lhs`.
    package static func - (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Duration {
        lhs.sinceOrigin - rhs.sinceOrigin
    }
}
