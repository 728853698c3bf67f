/// When a reconnecting ``EventSource`` connects again, and when it gives up.
///
/// The wait before a reconnection starts from the server's last valid `retry` (or ``initialDelay`` before any),
/// raised to ``minimumDelay`` when shorter; it doubles for every connection attempt in a row that failed, is capped
/// at ``maximumDelay``, and is spread by jitter between half and all of it, so that clients dropped together do not
/// return together — never below ``minimumDelay``. A connection that delivered an event resets the count; one that
/// fails, or ends before its first event, adds to it. So a server cannot make a client reconnect in a loop: after
/// `retry: 0` a failing server is tried again after waits of 1, then up to 2, 4, 8… s (at most seven connections in
/// the first minute, with the defaults), and a healthy stream that the server keeps cutting is reconnected to at
/// most once per ``minimumDelay``.
public struct EventSourcePolicy: Sendable, Equatable {
    /// 1 s: the default ``minimumDelay``, the order of magnitude the WHATWG standard suggests for a reconnection
    /// time ("a few seconds").
    public static let defaultMinimumDelay = Duration.seconds(1)
    /// The least floor: a ``minimumDelay`` below 1 ms counts as 1 ms, so that waits always have something to double.
    static let leastMinimumDelay = Duration.milliseconds(1)

    /// The wait before reconnecting while the server has sent no `retry` field (3 s, as browsers do).
    public var initialDelay: Duration
    /// The longest wait between two connection attempts (a ``minimumDelay`` above it wins).
    public var maximumDelay: Duration
    /// How many connection attempts in a row may fail before the source gives up; `nil`: never.
    public var maximumAttempts: Int?
    /// The shortest wait between two connection attempts, whatever the server's `retry` says (``defaultMinimumDelay``,
    /// 1 s, unless you pass another); a `retry` above it is honoured. Below 1 ms counts as 1 ms.
    public var minimumDelay: Duration

    /// Creates a policy with the default floor, ``defaultMinimumDelay``.
    public init(
        initialDelay: Duration = .seconds(3), maximumDelay: Duration = .seconds(60), maximumAttempts: Int? = nil
    ) {
        self.init(
            minimumDelay: Self.defaultMinimumDelay, initialDelay: initialDelay, maximumDelay: maximumDelay,
            maximumAttempts: maximumAttempts)
    }

    /// Creates a policy whose waits never fall below `minimumDelay` (below 1 ms counts as 1 ms).
    /// - Parameters:
    ///   - minimumDelay: The shortest wait between two connection attempts, whatever the server's `retry` says.
    ///   - initialDelay: The wait while the server has sent no `retry` field.
    ///   - maximumDelay: The longest wait between two connection attempts.
    ///   - maximumAttempts: How many connection attempts in a row may fail before the source gives up; `nil`: never.
    public init(
        minimumDelay: Duration,
        initialDelay: Duration = .seconds(3),
        maximumDelay: Duration = .seconds(60),
        maximumAttempts: Int? = nil
    ) {
        self.minimumDelay = max(.zero, minimumDelay)
        self.initialDelay = max(.zero, initialDelay)
        self.maximumDelay = max(.zero, maximumDelay)
        self.maximumAttempts = maximumAttempts.map { max(0, $0) }
    }

    /// The wait before the next connection after `failures` failed attempts in a row (0 after a connection that
    /// delivered events), given the server's last `retry` and a number in `0..<1` for the jitter: at least
    /// ``minimumDelay``, at most ``maximumDelay`` (or ``minimumDelay`` when that is longer).
    ///
    /// Pure, so that tests check the bounds without sleeping.
    public func delay(afterFailures failures: Int, serverRetry: Duration?, randomUnit: Double) -> Duration {
        let floor = max(minimumDelay, Self.leastMinimumDelay)
        let cap = max(maximumDelay, floor)
        var wait = max(serverRetry ?? initialDelay, floor)
        // Doubling from at least 1 ms passes any cap within 64 rounds.
        for _ in 0..<min(max(0, failures), 64) where wait < cap { wait *= 2 }
        wait = min(wait, cap)
        let unit = randomUnit.isNaN ? 0 : min(max(randomUnit, 0), 1)
        return max(wait * (0.5 + 0.5 * unit), floor)
    }

    /// Whether another attempt is allowed after `failures` failed attempts in a row.
    public func allowsAttempt(afterFailures failures: Int) -> Bool {
        guard let maximumAttempts else { return true }
        return failures < maximumAttempts
    }
}
