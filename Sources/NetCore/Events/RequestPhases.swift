/// The phases of one request that have a duration, worked out from its events as they come: how the metrics bridge
/// times each phase and a waterfall measures its bars. A value, without I/O: fed the request's events in order, it
/// answers each event that ends a phase with that phase and how long it took.
package struct RequestPhases: Sendable {
    /// A phase with a duration, and its fixed name (a metrics dimension, a span attribute).
    package enum Phase: String, Sendable, CaseIterable {
        /// From `queued` to `dequeued`: waiting in a held line, or for a request slot of the host.
        case queue
        /// From `credential_renewal_start` to its end.
        case credentialRenewal = "credential_renewal"
        /// From `attempt_start` to `attempt_end` or `attempt_failed`.
        case attempt
        /// From `request_head_sent` to `request_body_sent`: sending the request body.
        case requestBody = "request_body"
        /// From `request_start` to `response_head`: the server's time and the network's, as the client sees it.
        case timeToHead = "time_to_head"
        /// From `response_head` to `response_body_end`: reading the body.
        case body
        /// The wait a `retry_scheduled` announced.
        case retryWait = "retry_wait"
    }

    private var queued: MonotonicInstant?
    private var renewal: MonotonicInstant?
    private var attempt: MonotonicInstant?
    private var sent: MonotonicInstant?
    private var headSent: MonotonicInstant?
    private var head: MonotonicInstant?

    package init() {}

    /// Takes the request's next event; the phase it ends, with its duration, if it ends one.
    package mutating func take(_ event: RequestEvent) -> (phase: Phase, duration: Duration)? {
        let now = event.instant
        switch event.kind {
        case .queued: queued = now
        case .dequeued: return Self.ended(.queue, since: &queued, at: now)
        case .credentialRenewalStart: renewal = now
        case .credentialRenewalEnd: return Self.ended(.credentialRenewal, since: &renewal, at: now)
        case .attemptStart:
            attempt = now
            sent = nil
            headSent = nil
            head = nil
        case .attemptEnd, .attemptFailed: return Self.ended(.attempt, since: &attempt, at: now)
        case .requestStart:
            sent = now
            headSent = nil
        case .requestHeadSent: headSent = now
        case .requestBodySent: return Self.ended(.requestBody, since: &headSent, at: now)
        case .responseHead:
            head = now
            return Self.ended(.timeToHead, since: &sent, at: now)
        case .responseBodyEnd: return Self.ended(.body, since: &head, at: now)
        case .retryScheduled(let wait, _): return (.retryWait, wait)
        default: break
        }
        return nil
    }

    /// `phase` from `start` (then forgotten) to `end`; `nil` when it never started.
    private static func ended(_ phase: Phase, since start: inout MonotonicInstant?, at end: MonotonicInstant)
        -> (phase: Phase, duration: Duration)?
    {
        guard let began = start else { return nil }
        start = nil
        return (phase, end - began)
    }
}
