import NetKitLock

/// Pauses outgoing requests while something must finish first — a token refresh, a migration, a
/// maintenance window — and releases them afterwards, without polling.
///
/// Requests wait at the engine's line stage (``RequestExecutor/Configuration/line``, `NetworkManager.requestLine`) while the
/// line is held (cancellably) and are resumed in arrival order once the last hold is released. Requests sent
/// from inside ``withLineHeld(_:)`` pass straight through *this* line, and only while that hold lasts: the
/// holder of one line waits at any other held line like everyone else, and a task it started that outlives
/// the hold waits too. An open line costs a lock, not an actor hop, per request.
///
/// ```swift
/// let manager = NetworkManager(baseURL: url)
/// try await manager.requestLine.withLineHeld { try await migrateAccount() }   // other requests wait meanwhile
/// ```
public final class HoldTheLine: Sendable {
    /// One hold that lets its holder's requests pass; ended with ``HoldTheLine/endHold(_:)``.
    package struct Hold: Hashable, Sendable {
        let line: ObjectIdentifier
        let number: UInt64
    }

    private struct State {
        var anonymousHolds = 0
        var activeHolds: Set<UInt64> = []
        var nextHold: UInt64 = 0
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var nextWaiter = 0
        var observer: (@Sendable (Int) -> Void)?

        var isHeld: Bool { anonymousHolds > 0 || !activeHolds.isEmpty }
    }

    private let state: Lock<State>

    /// The holds the current task runs inside (set by ``withLineHeld(_:)`` and ``withHolder(_:_:)``).
    @TaskLocal private static var currentHolds: Set<Hold> = []

    /// Creates an open line.
    /// - Parameter onWaitingCountChange: Told the number of waiting requests whenever it changes (for
    ///   metrics, or for a test that must know a request is parked).
    public init(onWaitingCountChange: (@Sendable (Int) -> Void)? = nil) {
        state = Lock(State(observer: onWaitingCountChange))
    }

    /// Replaces the observer told the number of waiting requests whenever it changes.
    public func setWaitingCountObserver(_ observer: (@Sendable (Int) -> Void)?) {
        state.withLock { $0.observer = observer }
    }

    /// Whether requests are currently held.
    public var isHeld: Bool { state.withLock { $0.isHeld } }

    /// The number of requests waiting for the line to open.
    public var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Whether the current task runs inside one of this line's holds that has not ended.
    public var isHolder: Bool {
        let holds = Self.currentHolds.filter { $0.line == ObjectIdentifier(self) }
        guard !holds.isEmpty else { return false }
        return state.withLock { state in holds.contains { state.activeHolds.contains($0.number) } }
    }

    /// Holds the line until a matching ``release()``; holds nest. Nobody passes such a hold.
    public func hold() {
        state.withLock { $0.anonymousHolds += 1 }
    }

    /// Releases one ``hold()``; when no hold is left, every waiting request continues, in arrival order.
    public func release() {
        openIfFree { state in
            guard state.anonymousHolds > 0 else { return false }
            state.anonymousHolds -= 1
            return true
        }
    }

    /// Holds the line while `operation` runs; requests `operation` sends itself pass through.
    public func withLineHeld<T: Sendable>(_ operation: @Sendable () async throws -> T) async throws -> T {
        let hold = beginHold()
        defer { endHold(hold) }
        return try await withHolder(hold, operation)
    }

    /// Starts a hold whose holder passes; for owners (a refresh coordinator) that must end it on their own terms.
    package func beginHold() -> Hold {
        state.withLock { state in
            state.nextHold += 1
            state.activeHolds.insert(state.nextHold)
            return Hold(line: ObjectIdentifier(self), number: state.nextHold)
        }
    }

    /// Ends `hold` (idempotent); the line opens when no hold is left.
    package func endHold(_ hold: Hold) {
        openIfFree { $0.activeHolds.remove(hold.number) != nil }
    }

    /// Runs `operation` as the holder of `hold`: its requests pass this line while the hold lasts.
    package func withHolder<T: Sendable>(_ hold: Hold, _ operation: @Sendable () async throws -> T) async throws -> T {
        try await Self.$currentHolds.withValue(Self.currentHolds.union([hold])) { try await operation() }
    }

    /// Returns when the line is open (at once unless it is held, or the caller holds it).
    /// - Throws: `CancellationError` if the waiting task is cancelled.
    nonisolated(nonsending) public func waitUntilOpen() async throws {
        try await waitUntilOpen(onQueued: {})
    }

    /// ``waitUntilOpen()``, calling `onQueued` when the caller is parked to wait (not when the line is open).
    nonisolated(nonsending) package func waitUntilOpen(onQueued: () -> Void) async throws {
        guard isHeld, !isHolder else { return }
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if !state.isHeld { return .success(()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                } else {
                    onQueued()
                    notifyObserver()
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            if let waiter {
                notifyObserver()
                waiter.resume(throwing: CancellationError())
            }
        }
    }

    /// Applies `change`; if it changed something and the line is now open, resumes every waiter in arrival order.
    private func openIfFree(_ change: (inout State) -> Bool) {
        let (resumed, observer) = state.withLock {
            state -> ([CheckedContinuation<Void, any Error>], (@Sendable (Int) -> Void)?) in
            guard change(&state), !state.isHeld, !state.waiters.isEmpty else { return ([], nil) }
            let resumed = state.waiters.sorted { $0.key < $1.key }.map(\.value)
            state.waiters.removeAll()
            return (resumed, state.observer)
        }
        observer?(0)
        for waiter in resumed { waiter.resume() }
    }

    private func notifyObserver() {
        let (observer, count) = state.withLock { ($0.observer, $0.waiters.count) }
        observer?(count)
    }
}
