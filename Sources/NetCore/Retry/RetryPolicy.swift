import Foundation  // pow on TimeInterval: not in FoundationEssentials

/// How a request retries failed attempts.
///
/// ```swift
/// var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 3, delay: 0.5) }
/// ```
///
/// What is retried, unlike EKNetwork which retries almost anything:
/// - only transient failures: transport errors such as a timeout or a lost connection, and the statuses 408,
///   425, 429, 500, 502, 503 and 504, judged on the response's status whatever error the request's
///   `errorDecoder` made of it (an error conforming to ``NonRetriableError`` is never retried);
/// - only methods that are idempotent (GET, HEAD, PUT, DELETE, OPTIONS, TRACE), unless the request opts in
///   (`isIdempotent`) or carries an `Idempotency-Key` header: a POST is not sent twice by accident;
/// - never a body that cannot be replayed (a one-shot stream).
///
/// `delay` is the least wait before every retry, as EKNetwork states it: `RetryPolicy(maxRetryCount: 2, delay: 0.5)`
/// waits at least 0.5 s before each of its two retries. The backoff before retry *n* is
/// `delay × backoffMultiplier^(n−1)`; jitter spreads the wait above it, never below (so that clients that failed
/// together do not return together): with the default ``Jitter/proportional(_:)`` of 0.5 the wait is drawn
/// uniformly between the backoff and one and a half times it. `maxDelay` caps the wait, but never below `delay`.
/// A server's `Retry-After` (seconds or an HTTP date) replaces all of it, shorter or longer, but never below
/// `delay`: `Retry-After: 0` on every answer cannot make retries come back to back, and no more than
/// `maxRetryCount` follow the first attempt whatever the server says. One longer than `maxRetryAfter` ends the
/// retries instead.
public struct RetryPolicy: Sendable {
    /// How the wait is spread above the backoff (never below it).
    public enum Jitter: Sendable, Equatable {
        /// Up to this fraction of the backoff added on top of it, drawn uniformly: `.proportional(0.5)` waits between
        /// the backoff and one and a half times it. A negative fraction counts as zero.
        case proportional(Double)
        /// The backoff itself.
        case none

        /// Up to the whole backoff again on top of it: a wait between the backoff and twice it.
        public static let full = Jitter.proportional(1)
    }

    /// The number of retries after the first attempt.
    public let maxRetryCount: Int
    /// The least wait before each retry, in seconds, whatever a server's `Retry-After` says: the backoff before the
    /// first retry, which later retries multiply and jitter only adds to (a longer `Retry-After` replaces them).
    public let delay: TimeInterval
    /// The factor the backoff grows by with each further retry (`1` keeps it constant).
    public let backoffMultiplier: Double
    /// The longest wait between two attempts, in seconds; a `maxDelay` below ``delay`` counts as ``delay``.
    public let maxDelay: TimeInterval
    /// The longest `Retry-After` NetKit waits for; a longer one fails the request instead.
    public let maxRetryAfter: TimeInterval
    /// How the wait is spread above the backoff.
    public let jitter: Jitter
    /// Decides whether an error is worth another attempt (``isTransient(_:)`` unless you pass your own).
    public let shouldRetry: @Sendable (any Error) -> Bool
    /// Whether ``shouldRetry`` is the default, which judges failed responses by their status.
    private let judgesByStatus: Bool

    /// Creates a policy that retries transient failures.
    /// - Parameters:
    ///   - maxRetryCount: Retries after the first attempt (default 0: none).
    ///   - delay: The least wait before each retry, in seconds (default 1).
    ///   - backoffMultiplier: Growth of the backoff per retry (default 2).
    ///   - maxDelay: Cap on the wait, never below `delay` (default 30 s).
    ///   - maxRetryAfter: Cap on an honoured `Retry-After` (default 120 s).
    ///   - jitter: How the wait is spread above the backoff (default `.proportional(0.5)`: up to half the backoff more).
    public init(
        maxRetryCount: Int = 0,
        delay: TimeInterval = 1.0,
        backoffMultiplier: Double = 2.0,
        maxDelay: TimeInterval = 30,
        maxRetryAfter: TimeInterval = 120,
        jitter: Jitter = .proportional(0.5)
    ) {
        self.init(
            maxRetryCount, delay, backoffMultiplier, maxDelay, maxRetryAfter, jitter, RetryPolicy.isTransient,
            judgesByStatus: true)
    }

    /// Creates a policy that retries what `shouldRetry` accepts (EKNetwork's initializer, with NetKit's options).
    ///
    /// `shouldRetry` receives the error the caller would see: for a failed response, the request's
    /// `errorDecoder` result or an ``HTTPError``. Idempotency and replayability still apply.
    public init(
        maxRetryCount: Int = 0,
        delay: TimeInterval = 1.0,
        backoffMultiplier: Double = 2.0,
        maxDelay: TimeInterval = 30,
        maxRetryAfter: TimeInterval = 120,
        jitter: Jitter = .proportional(0.5),
        shouldRetry: @escaping @Sendable (any Error) -> Bool
    ) {
        self.init(
            maxRetryCount, delay, backoffMultiplier, maxDelay, maxRetryAfter, jitter, shouldRetry, judgesByStatus: false
        )
    }

    private init(
        _ maxRetryCount: Int,
        _ delay: TimeInterval,
        _ backoffMultiplier: Double,
        _ maxDelay: TimeInterval,
        _ maxRetryAfter: TimeInterval,
        _ jitter: Jitter,
        _ shouldRetry: @escaping @Sendable (any Error) -> Bool,
        judgesByStatus: Bool
    ) {
        self.maxRetryCount = max(0, maxRetryCount)
        self.delay = max(0, delay)
        self.backoffMultiplier = max(1, backoffMultiplier)
        self.maxDelay = max(0, maxDelay)
        self.maxRetryAfter = max(0, maxRetryAfter)
        self.jitter = jitter
        self.shouldRetry = shouldRetry
        self.judgesByStatus = judgesByStatus
    }

    /// Statuses that say "try again later" (RFC 9110 §15.5.9, §15.6; RFC 6585 §4; RFC 8470 §5.2).
    public static let transientStatusCodes: Set<Int> = [408, 425, 429, 500, 502, 503, 504]

    /// The default predicate: `true` for transient transport errors and transient statuses; `false` for
    /// cancellation, 401, ``NonRetriableError``, NetKit's own validation errors, decoding errors and anything
    /// else it does not know.
    public static func isTransient(_ error: any Error) -> Bool {
        isTransient(error, statusCode: nil)
    }

    /// The default predicate for a failure that may come with a response: a response is judged by its status
    /// (whatever error was made of it), unless the error is a ``NonRetriableError``.
    public static func isTransient(_ error: any Error, statusCode: Int?) -> Bool {
        switch error {
        case is CancellationError, is any NonRetriableError:
            return false
        case _ where statusCode != nil:
            return transientStatusCodes.contains(statusCode ?? 0)
        case is NetworkError, is DecodingError, is EncodingError:
            return false
        case let error as HTTPError:
            return transientStatusCodes.contains(error.statusCode)
        case let error as any TransportErrorConvertible:
            return error.transportError.isTransient
        default:
            return false
        }
    }

    /// Whether a request may be sent twice: its method is idempotent (RFC 9110 §9.2.2), the request declares
    /// itself idempotent, or it carries an `Idempotency-Key` header.
    public static func allowsRepeating(method: HTTPRequestMethod, declaredIdempotent: Bool, hasIdempotencyKey: Bool)
        -> Bool
    {
        declaredIdempotent || hasIdempotencyKey || method.isIdempotent
    }

    /// The wait before retry number `retry` (1-based) after `error`, or `nil` when the request must fail.
    ///
    /// At least ``delay``, even after `Retry-After: 0`. Pure: the caller supplies `now` (for an HTTP-date
    /// `Retry-After`) and `randomUnit`, a number in `0..<1` that picks the jittered wait above the backoff.
    /// - Parameters:
    ///   - retry: The number of the retry to come, from 1.
    ///   - error: The failure.
    ///   - response: The failed response, when the failure was one; its status and `Retry-After`
    ///     decide whatever `error` is.
    ///   - now: The time an HTTP-date `Retry-After` is measured from.
    ///   - randomUnit: A number in `0..<1` that picks the jittered wait.
    public func delay(
        beforeRetry retry: Int,
        after error: any Error,
        response: HTTPResponseHead? = nil,
        now: Date = Date(),
        randomUnit: Double = Double.random(in: 0..<1)
    ) -> TimeInterval? {
        delay(
            beforeRetry: retry, after: error, presentedAs: error, response: response, now: now, randomUnit: randomUnit)
    }

    /// ``delay(beforeRetry:after:response:now:randomUnit:)`` for an error the caller will see as `presented`
    /// (EKNetwork's facade shows transport failures as `URLError`): the default rules judge `error`, NetKit's own; a
    /// `shouldRetry` of the caller's judges what the caller would catch.
    package func delay(
        beforeRetry retry: Int,
        after error: any Error,
        presentedAs presented: @autoclosure () -> any Error,
        response: HTTPResponseHead?,
        now: @autoclosure () -> Date,
        randomUnit: Double
    ) -> TimeInterval? {
        guard retry >= 1, retry <= maxRetryCount else { return nil }
        let retryable =
            judgesByStatus ? Self.isTransient(error, statusCode: response?.statusCode) : shouldRetry(presented())
        guard retryable else { return nil }
        let retryAfterHeader =
            response?.headerFields.value(for: "Retry-After")
            ?? (error as? HTTPError)?.value(forHeader: "Retry-After")
        if let retryAfterHeader, let retryAfter = RetryAfter.seconds(from: retryAfterHeader, now: now()) {
            // The server may ask for more than `delay`, never for less: its `Retry-After: 0` is no loop.
            return retryAfter <= maxRetryAfter ? max(retryAfter, delay) : nil
        }
        let backoff = delay * pow(backoffMultiplier, Double(retry - 1))
        let spread: Double =
            switch jitter {
            case .proportional(let fraction): max(fraction, 0) * min(max(randomUnit, 0), 1)
            case .none: 0
            }
        // Both bounds are at least `delay` (the multiplier is at least 1): no wait is shorter.
        return min(max(maxDelay, delay), backoff + backoff * spread)
    }
}
