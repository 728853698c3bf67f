/// What bounds the reading of a streamed response body: the request's whole-exchange deadline and the longest
/// wait for a byte.
///
/// `send` reads a body inside its deadline stage; a stream's body is read after `stream` has returned, so the
/// engine hands these to the body (``ResponseBody/bounded(by:)``) and the request's `timeout` bounds the whole
/// exchange, body included, on every transport. The idle timeout keeps a stream that must stay open (server-sent
/// events) honest without a deadline: it ends the body once no byte has come for that long.
package struct BodyTimeouts: Sendable {
    /// When the whole exchange must be over; `nil` for none.
    package var deadline: MonotonicInstant?
    /// The longest wait for the next byte; `nil` for none.
    package var idle: Duration?
    /// The host the error names.
    package var host: String?

    package init(deadline: MonotonicInstant?, idle: Duration?, host: String?) {
        self.deadline = deadline
        self.idle = idle.flatMap { $0 > .zero ? $0 : nil }
        self.host = host
    }

    /// Whether anything bounds the body.
    package var isEmpty: Bool { deadline == nil && idle == nil }

    /// When to look again, given the last byte's arrival: the deadline or the end of the idle wait, whichever
    /// comes first.
    package func nextCheck(lastActivity: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        [deadline?.instant, idle.map { lastActivity + $0 }].compactMap { $0 }.min()
    }

    /// The error for a body that has run out of time at `now`, or `nil` while it has not.
    package func expiry(at now: ContinuousClock.Instant, lastActivity: ContinuousClock.Instant) -> TransportError? {
        if let deadline, now >= deadline.instant {
            return TransportError(
                .timedOut, host: host, detail: "the request did not finish within its timeout")
        }
        if let idle, now >= lastActivity + idle {
            return TransportError(.timedOut, host: host, detail: "no body byte within the request's idle timeout")
        }
        return nil
    }
}
