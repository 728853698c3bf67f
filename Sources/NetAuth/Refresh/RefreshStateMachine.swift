/// The decisions of single-flight refresh, as a value: no I/O, no clock of its own, no concurrency.
///
/// ``TokenRefreshCoordinator`` feeds it events (a request got 401, a refresh ended, a waiter was cancelled)
/// and carries out the actions it returns. `Waiter` is whatever the caller resumes later (a continuation in
/// the coordinator, a plain value in tests).
package struct RefreshStateMachine<Waiter> {
    /// What to do with a request that got 401.
    package enum UnauthorizedAction {
        /// A refresh succeeded since the request was sent: send it again with the current credential.
        case retryNow
        /// A refresh failed since the request was sent: the request shares that refresh's failure.
        case failWithRefreshError(any Error)
        /// No refresh is running: start one; the waiter was queued.
        case startRefresh
        /// A refresh is running: the waiter was queued for its outcome.
        case wait
        /// Refreshing again would exceed the policy's window.
        case fail(TokenRefreshError)
    }

    /// The number of refresh attempts that have ended, successful or not.
    private(set) package var generation: UInt64 = 0
    /// The error of the last attempt, `nil` if it succeeded (or none has ended).
    private(set) package var lastFailure: (any Error)?
    /// The number of the refresh in flight (its position among all started refreshes, from 1), if any.
    private(set) package var runningRefresh: Int?
    private(set) package var refreshStarts: [ContinuousClock.Instant] = []
    private(set) package var startedRefreshes = 0
    private var waiters: [Int: Waiter] = [:]

    package init() {}

    /// Whether a refresh is running.
    package var isRefreshing: Bool { runningRefresh != nil }

    /// The number of queued waiters.
    package var waitingCount: Int { waiters.count }

    /// A request that was sent under `sentGeneration` got 401; a new refresh must fit `policy`'s window.
    package mutating func unauthorized(
        sentGeneration: UInt64,
        waiter id: Int,
        _ waiter: Waiter,
        now: ContinuousClock.Instant,
        policy: TokenRefreshPolicy
    ) -> UnauthorizedAction {
        if sentGeneration < generation {
            if let lastFailure { return .failWithRefreshError(lastFailure) }
            return .retryNow
        }
        if isRefreshing {
            waiters[id] = waiter
            return .wait
        }
        refreshStarts.removeAll { now - $0 >= policy.interval }
        guard refreshStarts.count < policy.maxRefreshes else {
            return .fail(.refreshLimitExceeded(limit: policy.maxRefreshes, interval: policy.interval))
        }
        refreshStarts.append(now)
        startedRefreshes += 1
        runningRefresh = startedRefreshes
        waiters[id] = waiter
        return .startRefresh
    }

    /// Refresh number `refresh` ended (`failure` is `nil` on success); returns every waiter, each to be resumed
    /// with the outcome, or `nil` when that refresh had already been ended (it timed out, and this is its late
    /// return). A request whose 401 arrives later but was sent before this point gets the same outcome.
    package mutating func refreshFinished(_ refresh: Int, failure: (any Error)?) -> [Waiter]? {
        guard runningRefresh == refresh else { return nil }
        runningRefresh = nil
        generation += 1
        lastFailure = failure
        defer { waiters.removeAll() }
        return Array(waiters.values)
    }

    /// A waiter's task was cancelled; returns it if it was still queued.
    package mutating func cancel(waiter id: Int) -> Waiter? {
        waiters.removeValue(forKey: id)
    }
}
