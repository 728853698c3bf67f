import NetCore

/// Single-flight token refresh: any number of concurrent 401s start one refresh, and every waiter gets its
/// outcome.
///
/// - A request that got its 401 under a credential that has since been refreshed returns at once, without a
///   second refresh (``generation()`` tells which credential a request carried).
/// - A failed refresh is delivered to every waiter, and to every request sent before it failed whose 401
///   arrives later; a request sent after it may start a new refresh.
/// - More than ``TokenRefreshPolicy/maxRefreshes`` refreshes within ``TokenRefreshPolicy/interval`` fail with
///   ``TokenRefreshError/refreshLimitExceeded(limit:interval:)`` instead of looping.
/// - Cancelling a waiter ends its wait with `CancellationError` and leaves the refresh running for the
///   others: the refresh runs in a task of its own.
/// - A request the refresh itself sends fails on 401 with `NetworkError.unauthorized` instead of waiting
///   for itself; the mark is this coordinator's and this refresh's alone, so other coordinators (other
///   managers) refresh as usual, and so do tasks the refresher started once the refresh is over.
/// - With a `HoldTheLine`, new requests wait while the refresh runs (the refresher's own pass).
/// - A refresh that runs longer than ``TokenRefreshPolicy/timeout`` fails its waiters with
///   ``TokenRefreshError/timedOut(after:)``, releases the line and is cancelled. A refresh that starts after it
///   waits until the timed-out one has returned before it calls the refresher: the refresher is never entered
///   twice at once, even when it ignores cancellation.
/// - The timeout's timer ends with its refresh: nothing of a refresh outlives it.
public actor TokenRefreshCoordinator: CredentialRecovery {
    /// How a refresh is run: read when one starts, so a manager can change it without a new coordinator.
    package struct Configuration: Sendable {
        package var policy: TokenRefreshPolicy
        package var line: HoldTheLine?

        package init(policy: TokenRefreshPolicy, line: HoldTheLine?) {
            self.policy = policy
            self.line = line
        }
    }

    private let refresh: @Sendable () async throws -> Void
    private let configuration: @Sendable () -> Configuration
    private let now: @Sendable () -> ContinuousClock.Instant
    private var machine = RefreshStateMachine<CheckedContinuation<Void, any Error>>()
    private var nextWaiter = 0
    private var onWaitingCountChange: (@Sendable (Int) -> Void)?
    /// The hold the refresh in flight keeps on the line, ended when the refresh ends or times out.
    private var heldLine: (line: HoldTheLine, hold: HoldTheLine.Hold)?
    /// The last refresh's work, which may outlive its waiters when it timed out: the next refresh waits for it.
    private var lastWork: Task<Void, Never>?
    /// The timer of the refresh in flight, cancelled when the refresh ends.
    private var timer: Task<Void, Never>?
    private let sleep: @Sendable (Duration) async throws -> Void

    /// Creates a coordinator that refreshes with `refresher`.
    /// - Parameters:
    ///   - refresher: Runs each refresh: its `refreshTokenIfNeeded()` obtains the new token.
    ///   - policy: The refresh window.
    ///   - line: Held while a refresh runs, so requests that start meanwhile wait for the new credential.
    ///   - now: The clock the window is measured with (a test can pass its own).
    public init(
        refresher: any TokenRefreshProvider,
        policy: TokenRefreshPolicy = TokenRefreshPolicy(),
        line: HoldTheLine? = nil,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        let reference = TokenRefresherReference(refresher)
        self.init(policy: policy, line: line, now: now) { try await reference.provider.refreshTokenIfNeeded() }
    }

    /// Creates a coordinator around any refresh operation (``AuthenticatorCredentials`` uses this).
    public init(
        policy: TokenRefreshPolicy = TokenRefreshPolicy(),
        line: HoldTheLine? = nil,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        refresh: @escaping @Sendable () async throws -> Void
    ) {
        let configuration = Configuration(policy: policy, line: line)
        self.init(configuration: { configuration }, now: now, refresh: refresh)
    }

    /// Creates a coordinator whose policy and line are read when a refresh starts (`NetworkManager` uses this).
    ///
    /// `sleep` waits out the refresh timeout (a test can pass its own).
    package init(
        configuration: @escaping @Sendable () -> Configuration,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        refresh: @escaping @Sendable () async throws -> Void
    ) {
        self.refresh = refresh
        self.configuration = configuration
        self.now = now
        self.sleep = sleep
    }

    /// The number of refresh attempts that have ended; a request remembers the one it was sent under.
    public func generation() -> UInt64 { machine.generation }

    /// Whether `response` means the credential was rejected: its status is one of the policy's
    /// ``TokenRefreshPolicy/rejectionStatuses`` (401 by default), read when asked.
    public nonisolated func isRejection(_ response: HTTPResponseHead) -> Bool {
        configuration().policy.rejectionStatuses.contains(response.statusCode)
    }

    /// The number of refreshes started so far (successful or not).
    public var refreshCount: Int { machine.startedRefreshes }

    /// The number of requests waiting for the refresh in flight.
    public var waitingCount: Int { machine.waitingCount }

    /// Whether a refresh is running.
    public var isRefreshing: Bool { machine.isRefreshing }

    /// Sets an observer told the number of waiting requests whenever it changes (for metrics, or for a test
    /// that must know requests are waiting).
    public func setWaitingCountObserver(_ observer: (@Sendable (Int) -> Void)?) {
        onWaitingCountChange = observer
    }

    /// Waits for a fresh credential for a request that got 401 under `generation`.
    /// - Throws: the refresh's error, ``TokenRefreshError``, `CancellationError`, or
    ///   `NetworkError.unauthorized` when called from inside this coordinator's own running refresh.
    public func recover(fromUnauthorizedAt generation: UInt64) async throws {
        if let running = machine.runningRefresh,
            RefreshScope.current.contains(RefreshScope(coordinator: ObjectIdentifier(self), refresh: running))
        {
            throw NetworkError.unauthorized
        }
        let id = nextWaiter
        nextWaiter += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                guard !Task.isCancelled else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                let policy = configuration().policy
                switch machine.unauthorized(
                    sentGeneration: generation, waiter: id, continuation, now: now(), policy: policy)
                {
                case .retryNow: continuation.resume()
                case .failWithRefreshError(let error): continuation.resume(throwing: error)
                case .fail(let error): continuation.resume(throwing: error)
                case .wait: onWaitingCountChange?(machine.waitingCount)
                case .startRefresh:
                    onWaitingCountChange?(machine.waitingCount)
                    startRefresh(timeout: policy.timeout)
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    private func startRefresh(timeout: Duration) {
        guard let number = machine.runningRefresh else { return }
        let refresh = self.refresh
        let line = configuration().line
        let hold = line?.beginHold()
        let scope = RefreshScope.current.union([RefreshScope(coordinator: ObjectIdentifier(self), refresh: number)])
        // A task of its own: cancelling the waiter that started it must not cancel it for the others.
        let previous = lastWork
        let work = Task {
            // A refresh that timed out may still run (a refresher that ignores cancellation): never enter the
            // refresher beside it. This refresh's own timer still bounds the wait for its waiters.
            await previous?.value
            let outcome: Result<Void, any Error>
            do {
                // Timed out while the one before still ran: its waiters have their answer already.
                try Task.checkCancellation()
                try await RefreshScope.$current.withValue(scope) {
                    if let line, let hold {
                        try await line.withHolder(hold) { try await refresh() }
                    } else {
                        try await refresh()
                    }
                }
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            self.finishRefresh(number, outcome)
        }
        // The timer ends the refresh for its waiters even when the refresher ignores cancellation, and the hold
        // is ended by the coordinator, not by the refresher's return, so the line cannot stay held forever.
        let sleep = self.sleep
        timer = Task {
            do { try await sleep(timeout) } catch { return }
            if self.finishRefresh(number, .failure(TokenRefreshError.timedOut(after: timeout))) { work.cancel() }
        }
        lastWork = work
        if let line, let hold { heldLine = (line, hold) }
    }

    /// Ends refresh `number` for its waiters; `false` when it had already ended (a timeout, or its late return).
    @discardableResult
    private func finishRefresh(_ number: Int, _ outcome: Result<Void, any Error>) -> Bool {
        let failure: (any Error)? = if case .failure(let error) = outcome { error } else { nil }
        guard let waiters = machine.refreshFinished(number, failure: failure) else { return false }
        timer?.cancel()
        timer = nil
        if let (line, hold) = heldLine { line.endHold(hold) }
        heldLine = nil
        if !waiters.isEmpty { onWaitingCountChange?(0) }
        for waiter in waiters { waiter.resume(with: outcome) }
        return true
    }

    private func cancelWaiter(_ id: Int) {
        guard let waiter = machine.cancel(waiter: id) else { return }
        onWaitingCountChange?(machine.waitingCount)
        waiter.resume(throwing: CancellationError())
    }
}
