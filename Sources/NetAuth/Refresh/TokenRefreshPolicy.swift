/// Limits on token refresh, so a server that keeps answering 401 cannot make a client refresh in a loop.
public struct TokenRefreshPolicy: Sendable, Equatable {
    /// The most refreshes allowed to start within ``interval``.
    public var maxRefreshes: Int
    /// The sliding window the limit applies to.
    public var interval: Duration

    /// Creates a policy: at most `maxRefreshes` refreshes within any `interval` (default 5 per minute).
    public init(maxRefreshes: Int = 5, interval: Duration = .seconds(60)) {
        self.maxRefreshes = max(1, maxRefreshes)
        self.interval = interval
    }
}
