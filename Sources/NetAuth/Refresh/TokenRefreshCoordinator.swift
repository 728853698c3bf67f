import NetCore

/// Single-flight token refresh: any number of concurrent 401s start one refresh, and every waiter gets its
/// outcome.
///
/// - A request that got its 401 under a credential that has since been refreshed returns at once, without
///   a second refresh (``generation()`` tells which credential a request carried).
/// - A failed refresh is delivered to every waiter; the next 401 after it may try again.
/// - Cancelling a waiter ends its wait with `CancellationError` and leaves the refresh running for the
///   others: the refresh runs in a task of its own.
/// - The refresh runs inside ``CredentialRecoveryScope``, so a request it sends through the same manager
///   fails on 401 instead of waiting for itself.
public actor TokenRefreshCoordinator: CredentialRecovery {
    private let refresher: TokenRefresherReference
    private var completedRefreshes: UInt64 = 0
    private var refreshInFlight = false
    private var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
    private var nextWaiter = 0
    private var startedRefreshes = 0

    /// Creates a coordinator that refreshes with `refresher`.
    public init(refresher: any TokenRefreshProvider) {
        self.init(reference: TokenRefresherReference(refresher))
    }

    package init(reference: TokenRefresherReference) {
        self.refresher = reference
    }

    /// The number of completed, successful refreshes.
    public func generation() -> UInt64 { completedRefreshes }

    /// The number of refreshes started so far (successful or not).
    public var refreshCount: Int { startedRefreshes }

    /// The number of requests waiting for the refresh in flight.
    public var waitingCount: Int { waiters.count }

    /// Whether a refresh is running.
    public var isRefreshing: Bool { refreshInFlight }

    /// Waits for a fresh credential for a request that got 401 under `generation`.
    public func recover(fromUnauthorizedAt generation: UInt64) async throws {
        if generation < completedRefreshes { return }
        let id = nextWaiter
        nextWaiter += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                guard !Task.isCancelled else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                waiters[id] = continuation
                if !refreshInFlight { startRefresh() }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    private func startRefresh() {
        refreshInFlight = true
        startedRefreshes += 1
        let refresher = self.refresher
        // A task of its own: cancelling the waiter that started it must not cancel it for the others.
        Task {
            let outcome: Result<Void, any Error>
            do {
                try await CredentialRecoveryScope.$isRefreshing.withValue(true) {
                    try await refresher.provider.refreshTokenIfNeeded()
                }
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            self.finishRefresh(outcome)
        }
    }

    private func finishRefresh(_ outcome: Result<Void, any Error>) {
        refreshInFlight = false
        if case .success = outcome { completedRefreshes += 1 }
        let resumed = waiters
        waiters.removeAll()
        for waiter in resumed.values { waiter.resume(with: outcome) }
    }

    private func cancelWaiter(_ id: Int) {
        waiters.removeValue(forKey: id)?.resume(throwing: CancellationError())
    }
}
