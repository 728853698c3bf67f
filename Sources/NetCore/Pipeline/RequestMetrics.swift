#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What one request cost, measured by NetKit itself (URLSession's task metrics never arrive on Linux).
public struct RequestMetrics: Sendable, Equatable {
    /// When the request started (the engine began building it), on the continuous clock.
    public var start: ContinuousClock.Instant {
        get { started.instant }
        set { started = MonotonicInstant(newValue) }
    }
    /// The wall-clock time of ``start``, for logs.
    public var startDate: Date
    /// When the head of the last response arrived, if any did.
    public var responseHead: ContinuousClock.Instant? {
        get { headArrival?.instant }
        set { headArrival = newValue.map(MonotonicInstant.init) }
    }
    /// When the last exchange was handed to the transport (after any wait for a request slot); `nil` for a request
    /// that never reached one (a cache hit, a request refused before it was sent).
    public var requestStart: ContinuousClock.Instant? {
        get { exchangeStart?.instant }
        set { exchangeStart = newValue.map(MonotonicInstant.init) }
    }
    /// When the transport said the last exchange's request head went out (``TransportRequest/onSent``); a transport
    /// that cannot see its own writes says so no later than the response head.
    public var requestHeadSent: ContinuousClock.Instant? {
        get { headSent?.instant }
        set { headSent = newValue.map(MonotonicInstant.init) }
    }
    /// When the transport said the last byte of the last exchange's request body went out; `nil` without a body.
    public var requestBodySent: ContinuousClock.Instant? {
        get { bodySent?.instant }
        set { bodySent = newValue.map(MonotonicInstant.init) }
    }
    /// When NetKit read the last response body to its end; `nil` for `stream`, whose body its caller reads.
    public var responseBodyEnd: ContinuousClock.Instant? {
        get { bodyEnd?.instant }
        set { bodyEnd = newValue.map(MonotonicInstant.init) }
    }
    /// How long the request waited, in all, in a held line (``HoldTheLine``) and for its host's request slots
    /// (``RequestExecutor/Configuration/maximumRequestsPerHost``).
    public var queueWait: Duration
    /// When the request ended: its value decoded, its error thrown, or (for a stream) its body handed over.
    public var end: ContinuousClock.Instant? {
        get { ended?.instant }
        set { ended = newValue.map(MonotonicInstant.init) }
    }
    /// The HTTP version the last response head came over (`HTTP/1.1`, `HTTP/2`); `nil` when the transport cannot
    /// tell (URLSession on Linux) or no head came.
    public var protocolVersion: HTTPProtocolVersion?
    /// The number of attempts sent: retries, the resend after a token refresh and plugin-requested attempts included.
    public var attempts: Int
    /// Every wait before a retry, in order.
    public var retryWaits: [Duration]
    /// The times the engine sent an attempt once more on its own because the connection closed or was reset before
    /// any response came (a safe request whose body can be sent again); not counted in ``attempts``, nor against the
    /// retry policy.
    public var transparentRetries: Int
    /// The request body bytes sent, over all attempts (as far as the sizes were known).
    public var bytesSent: Int64
    /// The response body bytes NetKit read, over all attempts.
    public var bytesReceived: Int64
    /// What the response cache did for the request, in order (``CacheEvent``): empty when no cache is configured or
    /// the request passed it by (`stream`'s `GET`, a conditional or partial request, a request that says
    /// `no-store`). A retried or redirected request records each pass.
    ///
    /// The background validation that `stale-while-revalidate` starts runs after the request that was answered
    /// stale has ended: what it comes to (revalidated, stored, not stored) is not part of that request's events,
    /// nor of any other's.
    public var cacheEvents: [CacheEvent]
    /// Whether the retry budget (``RetryBudget``) stopped a retry the request's ``RetryPolicy`` allowed: the request
    /// then failed with the error of its last attempt, because retries to its origin had already used up their
    /// share of the traffic.
    public var retryBudgetExhausted: Bool

    // The instants, stored as values of known size (see ``MonotonicInstant``).
    package private(set) var started: MonotonicInstant
    package var headArrival: MonotonicInstant?
    package var exchangeStart: MonotonicInstant?
    package var headSent: MonotonicInstant?
    package var bodySent: MonotonicInstant?
    package var bodyEnd: MonotonicInstant?
    package var ended: MonotonicInstant?

    /// Creates metrics for a request starting now.
    public init(start: ContinuousClock.Instant = .now, startDate: Date = Date()) {
        self.started = MonotonicInstant(start)
        self.startDate = startDate
        self.attempts = 0
        self.retryWaits = []
        self.transparentRetries = 0
        self.bytesSent = 0
        self.bytesReceived = 0
        self.cacheEvents = []
        self.retryBudgetExhausted = false
        self.queueWait = .zero
    }

    /// From ``start`` to ``end`` (to now, while the request runs).
    public var duration: Duration { (ended ?? .now) - started }

    /// From ``start`` to the last response head, if any arrived.
    public var timeToResponseHead: Duration? { headArrival.map { $0 - started } }

    /// The sum of ``retryWaits``.
    public var totalRetryWait: Duration { retryWaits.reduce(.zero, +) }
}
