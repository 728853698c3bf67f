import Synchronization

/// Pauses outgoing requests while something must finish first — a token refresh, a migration, a
/// maintenance window — and releases them afterwards, without polling.
///
/// Requests pass through a ``HoldTheLineMiddleware`` (or `NetworkManager`'s own line); while the line is
/// held they wait (cancellably) and continue in arrival order once the last hold is released. Requests sent
/// from inside ``withLineHeld(_:)`` (the refresh itself) pass straight through. An open line costs a lock,
/// not an actor hop, per request.
///
/// ```swift
/// let line = HoldTheLine()
/// let manager = NetworkManager(baseURL: url, transport: URLSessionTransport(), middlewares: [HoldTheLineMiddleware(line)])
/// try await line.withLineHeld { try await migrateAccount() }   // other requests wait meanwhile
/// ```
public final class HoldTheLine: Sendable {
    private struct State {
        var holds = 0
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var nextWaiter = 0
        var observer: (@Sendable (Int) -> Void)?
    }

    private let state: Mutex<State>

    /// `true` inside ``withLineHeld(_:)``: such requests are the reason for the hold and must not wait.
    @TaskLocal public static var isHolder = false

    /// Creates an open line.
    /// - Parameter onWaitingCountChange: Told the number of waiting requests whenever it changes (for
    ///   metrics, or for a test that must know a request is parked).
    public init(onWaitingCountChange: (@Sendable (Int) -> Void)? = nil) {
        state = Mutex(State(observer: onWaitingCountChange))
    }

    /// Replaces the observer told the number of waiting requests whenever it changes.
    public func setWaitingCountObserver(_ observer: (@Sendable (Int) -> Void)?) {
        state.withLock { $0.observer = observer }
    }

    /// Whether requests are currently held.
    public var isHeld: Bool { state.withLock { $0.holds > 0 } }

    /// The number of requests waiting for the line to open.
    public var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Holds the line until a matching ``release()``; holds nest.
    public func hold() {
        state.withLock { $0.holds += 1 }
    }

    /// Releases one hold; when none is left, every waiting request continues, in arrival order.
    public func release() {
        let (resumed, observer) = state.withLock { state -> ([CheckedContinuation<Void, any Error>], (@Sendable (Int) -> Void)?) in
            guard state.holds > 0 else { return ([], nil) }
            state.holds -= 1
            guard state.holds == 0, !state.waiters.isEmpty else { return ([], nil) }
            let resumed = state.waiters.sorted { $0.key < $1.key }.map(\.value)
            state.waiters.removeAll()
            return (resumed, state.observer)
        }
        observer?(0)
        for waiter in resumed { waiter.resume() }
    }

    /// Holds the line while `operation` runs; requests `operation` sends itself pass through.
    public func withLineHeld<T: Sendable>(_ operation: @Sendable () async throws -> T) async throws -> T {
        hold()
        defer { release() }
        return try await Self.$isHolder.withValue(true) { try await operation() }
    }

    /// Returns when the line is open (at once unless it is held, or the caller is the holder).
    /// - Throws: `CancellationError` if the waiting task is cancelled.
    nonisolated(nonsending) public func waitUntilOpen() async throws {
        guard !Self.isHolder, isHeld else { return }
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.holds == 0 { return .success(()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                } else {
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

    private func notifyObserver() {
        let (observer, count) = state.withLock { ($0.observer, $0.waiters.count) }
        observer?(count)
    }
}
