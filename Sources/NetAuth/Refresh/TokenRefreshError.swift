/// Why a token refresh did not run.
public enum TokenRefreshError: Error, Sendable, Equatable, CustomStringConvertible {
    /// More than `limit` refreshes were needed within `interval`: the server keeps rejecting fresh tokens.
    case refreshLimitExceeded(limit: Int, interval: Duration)

    /// A sentence naming the failure.
    public var description: String {
        switch self {
        case .refreshLimitExceeded(let limit, let interval):
            "Token refresh stopped: more than \(limit) refreshes within \(interval)."
        }
    }
}
