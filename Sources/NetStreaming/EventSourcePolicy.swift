/// When a reconnecting ``EventSource`` connects again, and when it gives up.
///
/// The wait before a reconnection is the server's last valid `retry` (or ``initialDelay`` before any), doubled
/// for every connection attempt in a row that failed, capped at ``maximumDelay``, and spread by jitter between
/// half and all of it, so that clients dropped together do not return together. A connection that delivered an
/// event resets the count.
public struct EventSourcePolicy: Sendable, Equatable {
    /// The wait before reconnecting while the server has sent no `retry` field (3 s, as browsers do).
    public var initialDelay: Duration
    /// The longest wait between two connection attempts.
    public var maximumDelay: Duration
    /// How many connection attempts in a row may fail before the source gives up; `nil`: never.
    public var maximumAttempts: Int?

    /// Creates a policy.
    public init(
        initialDelay: Duration = .seconds(3), maximumDelay: Duration = .seconds(60), maximumAttempts: Int? = nil
    ) {
        self.initialDelay = max(.zero, initialDelay)
        self.maximumDelay = max(.zero, maximumDelay)
        self.maximumAttempts = maximumAttempts.map { max(0, $0) }
    }

    /// The wait before the next connection after `failures` failed attempts in a row (0 after a connection that
    /// delivered events), given the server's last `retry` and a number in `0..<1` for the jitter.
    ///
    /// Pure, so that tests check the bounds without sleeping.
    public func delay(afterFailures failures: Int, serverRetry: Duration?, randomUnit: Double) -> Duration {
        let base = serverRetry ?? initialDelay
        var wait = base
        for _ in 0..<max(0, failures) where wait < maximumDelay { wait *= 2 }
        wait = min(wait, maximumDelay)
        let spread = 0.5 + 0.5 * min(max(randomUnit, 0), 1)
        return wait * spread
    }

    /// Whether another attempt is allowed after `failures` failed attempts in a row.
    public func allowsAttempt(afterFailures failures: Int) -> Bool {
        guard let maximumAttempts else { return true }
        return failures < maximumAttempts
    }
}
