/// Pauses outgoing requests while something must finish first — a token refresh, a migration, a
/// maintenance window — and releases them afterwards, without polling.
///
/// Requests pass through a ``HoldTheLineMiddleware``; while the line is held they wait (cancellably) and
/// continue in arrival order once the last hold is released. Requests sent from inside
/// ``withLineHeld(_:)`` (the refresh itself) pass straight through.
///
/// ```swift
/// let line = HoldTheLine()
/// let manager = NetworkManager(baseURL: url, transport: URLSessionTransport(), middlewares: [HoldTheLineMiddleware(line)])
/// try await line.withLineHeld { try await migrateAccount() }   // other requests wait meanwhile
/// ```
public actor HoldTheLine {
    private var holds = 0
    private var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
    private var nextWaiter = 0
    private var onWaitingCountChange: (@Sendable (Int) -> Void)?

    /// `true` inside ``withLineHeld(_:)``: such requests are the reason for the hold and must not wait.
    @TaskLocal public static var isHolder = false

    /// Creates an open line.
    /// - Parameter onWaitingCountChange: Told the number of waiting requests whenever it changes (for
    ///   metrics, or for a test that must know a request is parked).
    public init(onWaitingCountChange: (@Sendable (Int) -> Void)? = nil) {
        self.onWaitingCountChange = onWaitingCountChange
    }

    /// Replaces the observer told the number of waiting requests whenever it changes.
    public func setWaitingCountObserver(_ observer: (@Sendable (Int) -> Void)?) {
        onWaitingCountChange = observer
    }

    /// Whether requests are currently held.
    public var isHeld: Bool { holds > 0 }

    /// The number of requests waiting for the line to open.
    public var waitingCount: Int { waiters.count }

    /// Holds the line until a matching ``release()``; holds nest.
    public func hold() {
        holds += 1
    }

    /// Releases one hold; when none is left, every waiting request continues.
    public func release() {
        guard holds > 0 else { return }
        holds -= 1
        guard holds == 0 else { return }
        let resumed = waiters.sorted { $0.key < $1.key }.map(\.value)
        waiters.removeAll()
        if !resumed.isEmpty { onWaitingCountChange?(0) }
        for waiter in resumed { waiter.resume() }
    }

    /// Holds the line while `operation` runs; requests `operation` sends itself pass through.
    public nonisolated func withLineHeld<T: Sendable>(_ operation: @Sendable () async throws -> T) async throws -> T {
        await hold()
        do {
            let value = try await Self.$isHolder.withValue(true) { try await operation() }
            await release()
            return value
        } catch {
            await release()
            throw error
        }
    }

    /// Returns when the line is open (at once unless it is held, or the caller is the holder).
    /// - Throws: `CancellationError` if the waiting task is cancelled.
    public func waitUntilOpen() async throws {
        guard holds > 0, !Self.isHolder else { return }
        let id = nextWaiter
        nextWaiter += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else if holds == 0 {
                    continuation.resume()
                } else {
                    waiters[id] = continuation
                    onWaitingCountChange?(waiters.count)
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    private func cancelWaiter(_ id: Int) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        onWaitingCountChange?(waiters.count)
        waiter.resume(throwing: CancellationError())
    }
}
