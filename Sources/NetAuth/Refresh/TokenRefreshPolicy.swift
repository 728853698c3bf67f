/// Limits on token refresh, so a server that keeps answering 401 cannot make a client refresh in a loop, and a
/// refresher that never returns cannot park every request forever.
public struct TokenRefreshPolicy: Sendable, Equatable {
    /// The most refreshes allowed to start within ``interval``.
    public var maxRefreshes: Int
    /// The sliding window the limit applies to.
    public var interval: Duration
    /// How long one refresh may run before its waiters fail with ``TokenRefreshError/timedOut(after:)``.
    public var timeout: Duration
    /// The statuses that mean the credential was rejected and start a renewal: `[401]` by default. A server that
    /// answers an expired session with `419`, or a gateway that says `403`, is named here:
    /// `policy.rejectionStatuses = [401, 419]`. The engine asks ``TokenRefreshCoordinator/isRejection(_:)``, which
    /// reads this set.
    public var rejectionStatuses: Set<Int> = [401]

    /// Creates a policy: at most `maxRefreshes` refreshes within any `interval` (default 5 per minute), each
    /// allowed to run for `timeout` (default 30 seconds).
    public init(maxRefreshes: Int = 5, interval: Duration = .seconds(60), timeout: Duration = .seconds(30)) {
        self.maxRefreshes = max(1, maxRefreshes)
        self.interval = interval
        self.timeout = max(timeout, .zero)
    }
}
