/// What a plugin knows about the attempt a hook runs for.
public struct PluginContext: Sendable {
    /// Why an attempt is made.
    public enum Reason: Sendable, Equatable {
        /// The first attempt (and the only call of `prepare`).
        case initial
        /// The retry policy decided to try again after waiting `wait`.
        case retry(wait: Duration)
        /// The credential was refreshed after a 401.
        case refreshedCredential
        /// A plugin's `verify` asked for another attempt.
        case requestedByPlugin
        /// The previous attempt was answered with a redirect of this status, which the engine follows: this
        /// attempt goes to its `Location` (see ``RedirectPolicy``).
        case redirected(status: Int)
    }

    /// A number unique to the request within the process, the same in every hook of the request from `prepare` to
    /// `didFinish`: the key under which a plugin keeps what it needs from one hook to the next.
    public let requestNumber: UInt64
    /// The attempt, from 1 (0 in `prepare`; in `didFinish` and `wasCancelled`, the last one made, 0 if none was).
    public let attempt: Int
    /// Why this attempt is made (in `didFinish` and `wasCancelled`: why the last one was).
    public let reason: Reason
    /// Whether the request is a `stream`, whose successful body is handed to the caller unread.
    public let isStreaming: Bool
    /// When the attempt began (when the request began, in `prepare`, `didFinish` and `wasCancelled`: the instant
    /// ``RequestMetrics/start`` holds).
    public var startedAt: ContinuousClock.Instant { start.instant }
    /// ``startedAt``, stored as a value of known size (see ``MonotonicInstant``).
    private let start: MonotonicInstant

    /// Creates a context.
    public init(
        requestNumber: UInt64, attempt: Int, reason: Reason, isStreaming: Bool,
        startedAt: ContinuousClock.Instant = .now
    ) {
        self.init(
            requestNumber: requestNumber, attempt: attempt, reason: reason, isStreaming: isStreaming,
            start: MonotonicInstant(startedAt))
    }

    /// Creates a context whose attempt began at `start`.
    package init(requestNumber: UInt64, attempt: Int, reason: Reason, isStreaming: Bool, start: MonotonicInstant) {
        self.requestNumber = requestNumber
        self.attempt = attempt
        self.reason = reason
        self.isStreaming = isStreaming
        self.start = start
    }
}
