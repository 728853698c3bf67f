import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a request retries failed attempts.
///
/// ```swift
/// var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 3, delay: 0.5) }
/// ```
///
/// Unlike EKNetwork, the default predicate retries only transient failures: transport errors such as a
/// timeout or a lost connection, and the statuses 408, 425, 429, 500, 502, 503 and 504. The wait grows by
/// `backoffMultiplier` per retry up to `maxDelay`, and a server's `Retry-After` is honoured (a longer wait than
/// `maxRetryAfter` ends the retries instead). A body that cannot be replayed (a stream) is never re-sent.
public struct RetryPolicy: Sendable {
    /// The number of retries after the first attempt.
    public let maxRetryCount: Int
    /// The wait in seconds before the first retry.
    public let delay: TimeInterval
    /// The factor the wait grows by with each further retry (`1` keeps it constant).
    public let backoffMultiplier: Double
    /// The longest wait between two attempts, in seconds.
    public let maxDelay: TimeInterval
    /// The longest `Retry-After` NetKit waits for; a longer one fails the request instead.
    public let maxRetryAfter: TimeInterval
    /// Decides whether an error is worth another attempt.
    public let shouldRetry: @Sendable (any Error) -> Bool

    /// Creates a policy.
    /// - Parameters:
    ///   - maxRetryCount: Retries after the first attempt (default 0: none).
    ///   - delay: Seconds before the first retry (default 1).
    ///   - backoffMultiplier: Growth of the wait per retry (default 2).
    ///   - maxDelay: Cap on the wait (default 30 s).
    ///   - maxRetryAfter: Cap on an honoured `Retry-After` (default 120 s).
    ///   - shouldRetry: Which errors are retried (default ``isTransient(_:)``).
    public init(
        maxRetryCount: Int = 0,
        delay: TimeInterval = 1.0,
        backoffMultiplier: Double = 2.0,
        maxDelay: TimeInterval = 30,
        maxRetryAfter: TimeInterval = 120,
        shouldRetry: @escaping @Sendable (any Error) -> Bool = RetryPolicy.isTransient
    ) {
        self.maxRetryCount = max(0, maxRetryCount)
        self.delay = max(0, delay)
        self.backoffMultiplier = max(1, backoffMultiplier)
        self.maxDelay = max(0, maxDelay)
        self.maxRetryAfter = max(0, maxRetryAfter)
        self.shouldRetry = shouldRetry
    }

    /// Statuses that say "try again later" (RFC 9110 §15.5.9, §15.6; RFC 6585 §4; RFC 8470 §5.2).
    public static let transientStatusCodes: Set<Int> = [408, 425, 429, 500, 502, 503, 504]

    /// The default predicate: `true` for transient transport errors and transient statuses; `false` for
    /// cancellation, 401, ``NonRetriableError``, NetKit's own validation errors, decoding errors and anything
    /// else it does not know.
    public static func isTransient(_ error: any Error) -> Bool {
        switch error {
        case is CancellationError, is any NonRetriableError, is NetworkError, is DecodingError, is EncodingError:
            return false
        case let error as HTTPError:
            return transientStatusCodes.contains(error.statusCode)
        case let error as URLError:
            return transientURLErrorCodes.contains(error.code)
        default:
            return false
        }
    }

    private static let transientURLErrorCodes: Set<URLError.Code> = [
        .timedOut, .cannotConnectToHost, .networkConnectionLost, .notConnectedToInternet,
        .dnsLookupFailed, .cannotFindHost, .badServerResponse,
    ]

    /// The wait before retry number `retry` (1-based) after `error`, or `nil` when the request must fail.
    ///
    /// Pure: the caller supplies `now` so that an HTTP-date `Retry-After` is judged deterministically.
    public func delay(beforeRetry retry: Int, after error: any Error, now: Date = Date()) -> TimeInterval? {
        guard retry >= 1, retry <= maxRetryCount, shouldRetry(error) else { return nil }
        let growth = pow(backoffMultiplier, Double(retry - 1))
        let backoff = min(maxDelay, delay * growth)
        guard let httpError = error as? HTTPError,
              let header = httpError.value(forHeader: "Retry-After"),
              let retryAfter = RetryAfter.seconds(from: header, now: now)
        else { return backoff }
        guard retryAfter <= maxRetryAfter else { return nil }
        return max(backoff, retryAfter)
    }
}
