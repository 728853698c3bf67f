import NetKitLock
import Synchronization

/// The state one request's stages share: attempt numbers, metrics, and the events its observers are told.
package final class RequestState: Sendable {
    private struct Values {
        var metrics: RequestMetrics
        /// Whether the event that ends the call was told: no other follows it.
        var closed = false
        var nextReason: PluginContext.Reason = .initial
        /// Why the last attempt was made, for the context of the hooks that end the request.
        var lastReason: PluginContext.Reason = .initial
        var pluginRetries = 0
        /// Which exchange the transport's reports of what it sent (``TransportRequest/onSent``) belong to; what it
        /// has told of it.
        var exchange = 0
        var sending = Sending.closed
        /// When the wait in a queue began, while the request waits.
        var queuedAt: MonotonicInstant?
        /// Whether work detached from the request (``RequestState/isDetached``) runs on its road: only then is the
        /// task-local asked, so that an event costs no task-local lookup otherwise.
        var hasDetachedWork = false

        /// Whether an event may be told now: the call has not ended, and the caller is not work detached from the
        /// request.
        var mayTell: Bool { !closed && !(hasDetachedWork && RequestState.isDetached) }
    }

    /// What the transport has told of the exchange in flight: reports outside an exchange, twice, or out of order are
    /// not the request's events.
    private enum Sending {
        case closed
        case started
        case headSent
        case bodySent
    }

    /// A number unique to the request within the process.
    package let number: UInt64
    /// Whether the request is a `stream`.
    package let isStreaming: Bool
    /// When the request started (``RequestMetrics/start``), readable without the lock.
    package let start: MonotonicInstant
    private let values: Lock<Values>
    /// The plugins told the request's events; `nil` when none is, and then no event is made.
    private let observers: [any RequestObserver]?

    private static let counter = Atomic<UInt64>(0)

    /// Set for work that runs on a request's road without being part of it (the cache's background validation):
    /// its phases are not the request's events. Whoever sets it calls ``beginDetachedWork()`` first.
    @TaskLocal package static var isDetached = false

    package init(isStreaming: Bool, observers: [any RequestObserver] = []) {
        self.number = Self.counter.add(1, ordering: .relaxed).newValue
        self.isStreaming = isStreaming
        let metrics = RequestMetrics()
        self.start = metrics.started
        self.values = Lock(Values(metrics: metrics))
        self.observers = observers.isEmpty ? nil : observers
    }

    /// Whether some plugin is told the request's events.
    package var isObserved: Bool { observers != nil }

    /// Tells the observers `kind`, now; `kind` is not even made when nobody observes. Nothing is told after the call
    /// ended, nor from work detached from the request (``isDetached``).
    ///
    /// Inlined, so that a request nobody observes pays a test of `observers` at each phase and no call.
    @inline(__always)
    package func emit(_ kind: @autoclosure () -> RequestEvent.Kind) {
        if let observers { tell(kind(), at: nil, to: observers) }
    }

    /// Tells `observers` `kind`, at `instant` or now, unless the call has ended or the work is detached from the
    /// request.
    @inline(never)
    private func tell(
        _ kind: consuming RequestEvent.Kind, at instant: MonotonicInstant?, to observers: [any RequestObserver]
    ) {
        let ends: Bool
        switch kind {
        case .callEnd, .callFailed: ends = true
        default: ends = false
        }
        // One end, whoever tells it first; and nothing after it.
        let open = values.withLock { values in
            guard values.mayTell else { return false }
            values.closed = ends
            return true
        }
        guard open else { return }
        deliver(kind, at: instant ?? .now, to: observers)
    }

    /// Tells the observers `kind`, at `instant`, when `mayTell` (``Values/mayTell``, read under the lock a note of the
    /// same phase took anyway: one lock for the note and its event) and someone observes. Never for an event that
    /// ends the call.
    @inline(__always)
    private func emit(_ kind: @autoclosure () -> RequestEvent.Kind, at instant: MonotonicInstant, if mayTell: Bool) {
        if mayTell, let observers { deliver(kind(), at: instant, to: observers) }
    }

    /// Builds the event and hands it to each observer. Never inlined, nor is ``tell(_:at:to:)``: inlined into the
    /// road's async functions, their code pushed one of them past the inliner's limit, which cost every request,
    /// observed or not, two task-stack allocations (counted).
    @inline(never)
    private func deliver(
        _ kind: consuming RequestEvent.Kind, at instant: MonotonicInstant, to observers: [any RequestObserver]
    ) {
        let event = RequestEvent(requestNumber: number, kind: kind, instant: instant)
        // Each observer called where the array holds it: a `for` loop copied each existential out first (counted).
        observers.withUnsafeBufferPointer { observers in
            for index in observers.indices { observers[index].observe(event) }
        }
    }

    /// Tells the observers that the call started, at ``start`` (the clock reading of the metrics' start): the first
    /// event, which nothing can have closed, and never told by detached work, which runs below a call's start.
    /// Inlined, like ``emit(_:)``: an autoclosure passed to a call is a context the async road allocates.
    @inline(__always)
    package func emitCallStart(method: @autoclosure () -> HTTPRequestMethod, origin: @autoclosure () -> HTTPOrigin) {
        if let observers { deliver(.callStart(method: method(), origin: origin()), at: start, to: observers) }
    }

    /// Notes that work detached from the request (``isDetached``) is about to run on its road; called before the
    /// task-local is set.
    package func beginDetachedWork() {
        values.withLock { $0.hasDetachedWork = true }
    }

    /// Tells the observers that attempt `attempt` ended with a response of `status` (whatever the stages outside
    /// make of it). Takes the status, not the exchange: an exchange captured for an event that nobody may be told
    /// was a copy of a dozen references on every observed attempt (counted).
    package func emitAttemptEnd(_ attempt: Int, status: Int) {
        emit(.attemptEnd(attempt: attempt, status: status))
    }

    /// Tells the observers that attempt `attempt` ended with `error`: its status when the failure was made of a
    /// response, else why none came.
    package func emitAttemptEnd(_ attempt: Int, failure error: any Error) {
        emit(Self.end(of: attempt, failure: error))
    }

    /// The event that ends `attempt` with `error`.
    private static func end(of attempt: Int, failure error: any Error) -> RequestEvent.Kind {
        if let failure = error as? ResponseFailure {
            .attemptEnd(attempt: attempt, status: failure.exchange.response.statusCode)
        } else {
            .attemptFailed(attempt: attempt, reason: reason(error))
        }
    }

    /// What an event says of `error`: its description, as the caller would read it (a cancellation in words).
    package static func reason(_ error: any Error) -> String {
        switch error {
        case is CancellationError: "cancelled"
        case let failure as ResponseFailure: reason(failure.error)
        case let failure as RefreshFailure: reason(failure.underlying)
        default: String(describing: error)
        }
    }

    /// The context of `prepare`.
    var preparationContext: PluginContext {
        PluginContext(requestNumber: number, attempt: 0, reason: .initial, isStreaming: isStreaming, start: start)
    }

    /// The context of `didFinish` and `wasCancelled`: the request's number and start, with the last attempt's number
    /// and reason (attempt 0 when none was made).
    package var endContext: PluginContext {
        values.withLock { values in
            PluginContext(
                requestNumber: number, attempt: values.metrics.attempts, reason: values.lastReason,
                isStreaming: isStreaming, start: start)
        }
    }

    /// Counts a new attempt of `bytes` body bytes and returns its context. Never inlined, like the other notes the
    /// async road makes (see ``beginExchange(of:)``).
    @inline(never)
    func beginAttempt(sending bytes: Int64?) -> PluginContext {
        let now = MonotonicInstant.now
        let observed = observers != nil
        let (context, mayTell) = values.withLock { values in
            values.metrics.attempts += 1
            values.metrics.bytesSent += bytes ?? 0
            let reason = values.nextReason
            values.nextReason = .initial
            values.lastReason = reason
            let context = PluginContext(
                requestNumber: number, attempt: values.metrics.attempts, reason: reason, isStreaming: isStreaming,
                start: now)
            return (context, observed && values.mayTell)
        }
        emit(.attemptStart(attempt: context.attempt, reason: context.reason), at: now, if: mayTell)
        return context
    }

    /// Counts a new attempt of `bytes` body bytes that no plugin hook will see; its number. Never inlined (see
    /// ``beginExchange(of:)``).
    @inline(never)
    func countAttempt(sending bytes: Int64?) -> Int {
        let observed = observers != nil
        let (attempt, reason, mayTell) = values.withLock { values in
            values.metrics.attempts += 1
            values.metrics.bytesSent += bytes ?? 0
            values.lastReason = values.nextReason
            values.nextReason = .initial
            return (values.metrics.attempts, values.lastReason, observed && values.mayTell)
        }
        if mayTell { emit(.attemptStart(attempt: attempt, reason: reason), at: .now, if: true) }
        return attempt
    }

    /// Says why the next attempt will be made.
    func nextAttempt(because reason: PluginContext.Reason) {
        values.withLock { $0.nextReason = reason }
    }

    /// Notes a plugin's request for another attempt; `false` once the limit is spent.
    func allowPluginRetry() -> Bool {
        values.withLock { values in
            guard values.pluginRetries < PluginVerdict.maximumRetries else { return false }
            values.pluginRetries += 1
            return true
        }
    }

    /// Notes `request` handed to the transport now, as a new exchange, and gives it the closure the transport tells
    /// what it sent (``TransportRequest/onSent``). Synchronous, apart from the async road that calls it: what it
    /// holds lives in no task's frame.
    ///
    /// Never inlined, like the other notes the async road makes on every exchange: inlined there, the closure a lock
    /// runs is a context allocated on the task's stack (four such allocations per request, counted).
    @inline(never)
    func beginExchange(of request: inout TransportRequest) {
        request.onSent = beginExchange()
    }

    /// Notes an exchange handed to the transport now; what the transport reports of it goes to the returned
    /// closure.
    private func beginExchange() -> @Sendable (TransportRequest.SentPart) -> Void {
        let now = MonotonicInstant.now
        let observed = observers != nil
        let (exchange, mayTell) = values.withLock { values in
            values.exchange += 1
            values.sending = .started
            values.metrics.exchangeStart = now
            values.metrics.headSent = nil
            values.metrics.bodySent = nil
            return (values.exchange, observed && values.mayTell)
        }
        emit(.requestStart, at: now, if: mayTell)
        return { [self] part in recordSent(part, in: exchange) }
    }

    /// Notes what the transport sent of exchange `exchange`, if it is still the one in flight and the report comes in
    /// order: the head once, then the body once.
    private func recordSent(_ part: TransportRequest.SentPart, in exchange: Int) {
        let now = MonotonicInstant.now
        let observed = observers != nil
        let mayTell = values.withLock { values in
            guard values.exchange == exchange else { return false }
            switch (part, values.sending) {
            case (.head, .started):
                values.sending = .headSent
                values.metrics.headSent = now
            case (.body, .headSent):
                values.sending = .bodySent
                values.metrics.bodySent = now
            default:
                return false
            }
            return observed && values.mayTell
        }
        switch part {
        case .head: emit(.requestHeadSent, at: now, if: mayTell)
        case .body(let bytes): emit(.requestBodySent(bytes: bytes), at: now, if: mayTell)
        }
    }

    /// Notes that the exchange in flight failed: the transport's late reports of it are not told.
    @inline(never)
    func endExchange() {
        values.withLock { $0.sending = .closed }
    }

    /// Notes the arrival of a response head of `status`; the transport's later reports of what it sent are not
    /// told (it tells them before the head).
    @inline(never)
    func recordHead(at instant: MonotonicInstant, status: Int, protocolVersion: HTTPProtocolVersion? = nil) {
        let observed = observers != nil
        let (mayTell, toldAt) = values.withLock { values -> (Bool, MonotonicInstant?) in
            values.metrics.headArrival = instant
            values.metrics.protocolVersion = protocolVersion
            values.sending = .closed
            // At the arrival instant of the request's own exchange, unless what the exchange told before it (what
            // the transport sent, which a transport may tell only once the answer proves it) was told later: events
            // go in time order. A head this request did not fetch (a coalesced or cached one) is told now.
            let mayTell = observed && values.mayTell
            guard let start = values.metrics.exchangeStart else { return (mayTell, nil) }
            let sent = max(start, values.metrics.headSent ?? start, values.metrics.bodySent ?? start)
            return (mayTell, max(instant, sent))
        }
        if mayTell { emit(.responseHead(status: status), at: toldAt ?? .now, if: true) }
    }

    /// Notes a body read to its end.
    @inline(never)
    func recordReceived(_ bytes: Int) {
        let now = MonotonicInstant.now
        let observed = observers != nil
        let mayTell = values.withLock { values in
            values.metrics.bytesReceived += Int64(bytes)
            values.metrics.bodyEnd = now
            return observed && values.mayTell
        }
        emit(.responseBodyEnd(bytes: Int64(bytes)), at: now, if: mayTell)
    }

    /// Notes that the request starts to wait in a queue (a held line, a request slot).
    func beginQueueWait() {
        let now = MonotonicInstant.now
        values.withLock { $0.queuedAt = now }
        emit(.queued)
    }

    /// Notes that a wait, if the request was waiting, ended (however it ended), and adds it to
    /// ``RequestMetrics/queueWait``.
    func endQueueWait() {
        let waited = values.withLock { values -> Bool in
            guard let queuedAt = values.queuedAt else { return false }
            values.queuedAt = nil
            values.metrics.queueWait += .now - queuedAt
            return true
        }
        if waited { emit(.dequeued) }
    }

    /// Notes a retry after `wait`, because of `error`.
    func recordRetry(after wait: Duration, because error: any Error) {
        values.withLock { $0.metrics.retryWaits.append(wait) }
        emit(.retryScheduled(wait: wait, reason: Self.reason(error)))
    }

    /// Notes that the retry budget of `origin` refused a retry the policy allowed.
    func recordRetryBudgetExhausted(origin: HTTPOrigin) {
        values.withLock { $0.metrics.retryBudgetExhausted = true }
        emit(.retryBudgetExhausted(origin: origin))
    }

    /// Notes an attempt sent once more, `bytes` body bytes again, after its connection closed unanswered (`error`);
    /// what the transport tells of the exchange that failed is no longer the request's.
    func recordTransparentRetry(sending bytes: Int64?, because error: any Error) {
        values.withLock { values in
            values.sending = .closed
            values.metrics.transparentRetries += 1
            values.metrics.bytesSent += bytes ?? 0
        }
        emit(.transparentRetry(reason: Self.reason(error)))
    }

    /// Adds what the cache did to the request's ``RequestMetrics/cacheEvents``.
    func recordCache(_ events: [CacheEvent]) {
        guard !events.isEmpty else { return }
        values.withLock { $0.metrics.cacheEvents.append(contentsOf: events) }
        for event in events { emit(RequestEvent.Kind(event)) }
    }

    /// Marks the end and returns the final metrics.
    package func finish() -> RequestMetrics {
        values.withLock { values in
            if values.metrics.ended == nil { values.metrics.ended = .now }
            return values.metrics
        }
    }
}
