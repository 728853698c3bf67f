import NetKitLock

/// A limit on retries as a share of traffic, per origin, so that retries cannot multiply the load on a server that is
/// already failing.
///
/// A ``RetryPolicy`` bounds one request's retries; a budget bounds them all together. Without one, a server that
/// answers every request with 503 gets each request `1 + maxRetryCount` times: four times its load with
/// `maxRetryCount: 3`, just when it can least carry it. With the default budget, the retries to one origin stay
/// within 20 % of the requests to it that may retry (plus a floor of 10 retries, so that a quiet client, or the first
/// request of a fresh budget, can still retry): 10,000 such requests send at most 12,000 times. A request whose retry
/// the budget refuses fails at once with its own error (the 503's ``HTTPError``, the transport's error), its
/// ``RequestMetrics/retryBudgetExhausted`` is `true`, its observers are told
/// ``RequestEvent/Kind/retryBudgetExhausted(origin:)``, and ``LoggingPlugin``'s failure line says so.
///
/// Each origin (scheme, host and port) has its own budget: a failing host does not spend another's. Counts are halved
/// every `window` (10 s by default), so that a long quiet spell does not leave a large credit a sudden outage could
/// spend at once; at most 1,024 origins are counted, the least recently used forgotten first. Only requests that may
/// retry (whose ``RetryPolicy`` allows at least one retry) count.
///
/// Every ``RequestExecutor/Configuration`` makes its own budget, which all requests of that configuration (and of its
/// copies, and of the engines and managers built with them) share; set ``RequestExecutor/Configuration/retryBudget``
/// to share one between configurations, to change its numbers, or to `nil` to turn it off:
///
/// ```swift
/// var configuration = RequestExecutor.Configuration()
/// configuration.retryBudget = RetryBudget(extraShare: 0.1)   // retries at most 10 % of the traffic
/// configuration.retryBudget = nil                              // every request retries as its policy says
/// ```
///
/// A model of reqwest's and Finagle's retry budgets (a deposit per request, a withdrawal per retry).
public final class RetryBudget: Sendable {
    /// Retries granted per request that may retry, beyond the floor: `0.2` (the default) lets retries add 20 % to
    /// the requests sent to an origin.
    public let extraShare: Double
    /// Retries granted to an origin in a window whatever its traffic (10 by default): the floor that lets a quiet
    /// client, and the first request of a fresh budget, retry.
    public let minimumRetries: Int
    /// How long counts last before they are halved (10 s by default).
    public let window: Duration

    private let ledger: Lock<Ledger>
    /// Where the budget reads the time (a test can pass a fixed one).
    private let now: @Sendable () -> MonotonicInstant

    /// A budget that lets retries add `extraShare` of the requests to each origin, and at least `minimumRetries` a
    /// window, the counts halved every `window`.
    ///
    /// Values that make no sense are clamped rather than trapped on: a share that is negative or not a number counts
    /// as 0 (only the floor's retries), one above 1,000 as 1,000; a negative floor as 0; a window under 1 s as 1 s.
    /// - Parameters:
    ///   - extraShare: Retries per request that may retry, beyond the floor (default 0.2: at most 20 % more sends).
    ///   - minimumRetries: Retries granted per origin and window whatever the traffic (default 10).
    ///   - window: How long counts last before they are halved (default 10 s).
    public convenience init(extraShare: Double = 0.2, minimumRetries: Int = 10, window: Duration = .seconds(10)) {
        self.init(
            extraShare: extraShare, minimumRetries: minimumRetries, window: window,
            maximumOrigins: Ledger.defaultMaximumOrigins, now: { .now })
    }

    /// A budget counting at most `maximumOrigins` origins, reading the time from `now`.
    package init(
        extraShare: Double, minimumRetries: Int, window: Duration, maximumOrigins: Int,
        now: @escaping @Sendable () -> MonotonicInstant
    ) {
        let ledger = Ledger(
            extraShare: extraShare, minimumRetries: minimumRetries, window: window, maximumOrigins: maximumOrigins)
        self.extraShare = ledger.extraShare
        self.minimumRetries = ledger.minimumRetries
        self.window = ledger.window
        self.ledger = Lock(ledger)
        self.now = now
    }

    /// Counts a request to `origin` that may retry: once per request, before its first attempt.
    package func deposit(for origin: HTTPOrigin) {
        let now = now()
        ledger.withLock { $0.deposit(for: origin, now: now) }
    }

    /// Grants a retry to `origin` and counts it; `false` when the origin's budget is spent and the request must not
    /// retry.
    package func withdraw(for origin: HTTPOrigin) -> Bool {
        let now = now()
        return ledger.withLock { $0.withdraw(for: origin, now: now) }
    }

    /// The retries `origin` would be granted now, before any other request to it: how much of its budget is left
    /// (``minimumRetries`` for an origin the budget has not seen).
    public func availableRetries(for origin: HTTPOrigin) -> Int {
        let now = now()
        return ledger.withLock { $0.availableRetries(for: origin, now: now) }
    }
}
