import NetCore

/// The order a request's events must follow (Docs/Observability.md writes it out), as a check a test runs over what
/// an ``EventRecorder`` kept:
///
/// ```
/// call     = callStart, step*, (callEnd | [cancelled], callFailed)
/// step     = queued, dequeued
///          | attempt
///          | retryScheduled | retryBudgetExhausted | redirect
///          | credentialRenewalStart, credentialRenewalEnd
/// attempt  = attemptStart, inside*, (attemptEnd | attemptFailed)
/// inside   = queued, dequeued
///          | cache* | coalesced | exchange | transparentRetry | responseHead | responseBodyEnd
/// exchange = requestStart, [requestHeadSent, [requestBodySent]]
/// ```
///
/// Within an attempt, `requestStart` comes before `responseHead`, once, or twice with a `transparentRetry` between
/// (which comes at most once, before any head); what the transport sent (`requestHeadSent`, then
/// `requestBodySent`) comes at most once per `requestStart`, before the head; `responseHead` comes at most once and
/// before `responseBodyEnd`; a
/// wait for one of the host's request slots (`queued`, `dequeued`:
/// `RequestExecutor.Configuration.maximumRequestsPerHost`) comes at most once, before `requestStart`; attempts are
/// numbered 1, 2, 3 … and each end names the attempt that began. Every start has exactly one end: a call, an
/// attempt, a wait in the line or for a slot, a renewal. Events of different requests may interleave; each request
/// is checked on its own.
public enum RequestEventGrammar {
    /// What breaks the grammar in `events`, one sentence per fault naming the request and the event; empty when
    /// every request's events follow it.
    public static func violations(in events: [RequestEvent]) -> [String] {
        var order: [UInt64] = []
        var byRequest: [UInt64: [RequestEvent.Kind]] = [:]
        for event in events {
            if byRequest[event.requestNumber] == nil { order.append(event.requestNumber) }
            byRequest[event.requestNumber, default: []].append(event.kind)
        }
        return order.flatMap { number in
            violations(ofRequest: byRequest[number] ?? []).map { "request #\(number): \($0)" }
        }
    }

    /// What breaks the grammar in the events of one request, in order.
    public static func violations(ofRequest kinds: [RequestEvent.Kind]) -> [String] {
        var checker = Checker()
        for (index, kind) in kinds.enumerated() {
            if let fault = checker.accept(kind) { return ["event \(index + 1) (\(kind.name)): \(fault)"] }
        }
        return checker.finish().map { [$0] } ?? []
    }

    /// The grammar as a state machine: where the request's events are, and what may come next.
    private struct Checker {
        enum Place { case beforeCall, inCall, queued, renewing, ended }
        struct Attempt {
            var number: Int
            /// Whether the attempt waited for a request slot.
            var queued = false
            var sent = false
            var headSent = false
            var bodySent = false
            var resent = false
            var head = false
            var bodyEnded = false
        }

        var place = Place.beforeCall
        var attempt: Attempt?
        var attempts = 0
        var cancelled = false

        /// Takes the next event; the fault, if it may not come here.
        mutating func accept(_ kind: RequestEvent.Kind) -> String? {
            switch place {
            case .beforeCall:
                guard case .callStart = kind else { return "the first event must be call_start" }
                place = .inCall
                return nil
            case .ended:
                return "an event after the call ended"
            case .queued:
                guard case .dequeued = kind else { return "a queued request must be dequeued before anything else" }
                place = .inCall
                return nil
            case .renewing:
                guard case .credentialRenewalEnd = kind else {
                    return "a renewal must end before anything else happens"
                }
                place = .inCall
                return nil
            case .inCall:
                if attempt != nil { return acceptInsideAttempt(kind) }
                return acceptInCall(kind)
            }
        }

        private mutating func acceptInCall(_ kind: RequestEvent.Kind) -> String? {
            if cancelled, !isCallFailed(kind) { return "cancelled must be followed by call_failed" }
            switch kind {
            case .callEnd, .callFailed:
                place = .ended
            case .cancelled:
                cancelled = true
            case .queued:
                place = .queued
            case .credentialRenewalStart:
                place = .renewing
            case .attemptStart(let number, _):
                guard number == attempts + 1 else { return "attempt \(number) began after attempt \(attempts)" }
                attempts = number
                attempt = Attempt(number: number)
            case .retryScheduled, .retryBudgetExhausted, .redirect:
                break
            default:
                return "\(kind.name) outside an attempt"
            }
            return nil
        }

        private mutating func acceptInsideAttempt(_ kind: RequestEvent.Kind) -> String? {
            guard var current = attempt else { return nil }
            switch kind {
            case .attemptEnd(let number, _), .attemptFailed(let number, _):
                guard number == current.number else { return "attempt \(number) ended while \(current.number) ran" }
                attempt = nil
                return nil
            case .queued:
                // A slot is waited for once per attempt, before it goes to the transport (a resend keeps the slot).
                guard !current.queued, !current.sent, !current.resent, !current.head else {
                    return "queued inside attempt \(current.number) after its request_start, or twice"
                }
                current.queued = true
                place = .queued
            case .requestStart:
                guard !current.sent, !current.head else { return "request_start twice, or after the head" }
                current.sent = true
            case .requestHeadSent:
                guard current.sent, !current.headSent, !current.head else {
                    return "request_head_sent without request_start, twice, or after the response head"
                }
                current.headSent = true
            case .requestBodySent:
                guard current.headSent, !current.bodySent, !current.head else {
                    return "request_body_sent without request_head_sent, twice, or after the response head"
                }
                current.bodySent = true
            case .transparentRetry:
                guard current.sent, !current.resent, !current.head else {
                    return "transparent_retry without request_start, twice, or after the head"
                }
                current.resent = true
                current.sent = false
                current.headSent = false
                current.bodySent = false
            case .responseHead:
                guard !current.head else { return "two response heads in one attempt" }
                current.head = true
            case .responseBodyEnd:
                guard current.head, !current.bodyEnded else { return "a body end without a head, or twice" }
                current.bodyEnded = true
            case .cacheHit, .cacheMiss, .cacheRevalidated, .cacheServedStale, .cacheUnavailable, .cacheStored,
                .cacheNotStored, .cacheInvalidated, .coalesced:
                break
            default:
                return "\(kind.name) inside attempt \(current.number), which has not ended"
            }
            attempt = current
            return nil
        }

        private func isCallFailed(_ kind: RequestEvent.Kind) -> Bool {
            if case .callFailed = kind { true } else { false }
        }

        /// The fault of events that stop here, if the call is not closed.
        func finish() -> String? {
            switch place {
            case .ended: nil
            case .beforeCall: "no event"
            default: "the call never ended (no call_end or call_failed)"
            }
        }
    }
}
