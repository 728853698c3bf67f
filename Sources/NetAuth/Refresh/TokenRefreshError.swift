#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a token refresh did not give requests a fresh credential.
public enum TokenRefreshError: Error, Sendable, Equatable, LocalizedError, CustomStringConvertible {
    /// More than `limit` refreshes were needed within `interval`: the server keeps rejecting fresh tokens.
    case refreshLimitExceeded(limit: Int, interval: Duration)
    /// The refresher did not finish within the policy's timeout; waiting requests were released with this error
    /// and the refresh task was cancelled.
    case timedOut(after: Duration)

    /// A sentence naming the failure.
    public var description: String {
        switch self {
        case .refreshLimitExceeded(let limit, let interval):
            "Token refresh stopped: more than \(limit) refreshes within \(interval)."
        case .timedOut(let timeout):
            "Token refresh did not finish within \(timeout)."
        }
    }

    /// The same sentence as ``description``.
    public var errorDescription: String? { description }
}
