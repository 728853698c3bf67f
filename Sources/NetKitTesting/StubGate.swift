import NetKitLock

/// Holds stub replies until the test opens it, and tells the test when requests have reached it: a suspension
/// the test releases, instead of a delay that would make the test race a clock.
///
/// ```swift
/// let gate = StubGate()
/// stub.stub(.path("/v1/slow"), reply: .json("{}").held(by: gate))
/// let call = Task { try await manager.send(Slow(), accessToken: nil) }
/// await gate.waitForArrivals(1)     // the request is in flight, held at the gate
/// call.cancel()                     // …or gate.open() to let it answer
/// ```
///
/// A held request that is cancelled stops waiting at once with `CancellationError`.
public final class StubGate: Sendable {
    private struct State {
        var isOpen = false
        var arrivals = 0
        var nextID = 0
        var held: [Int: CheckedContinuation<Void, any Error>] = [:]
        var watchers: [Int: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]

        /// The watchers whose count has been reached, removed.
        mutating func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let ready = watchers.filter { $0.value.count <= arrivals }
            for id in ready.keys { watchers[id] = nil }
            return ready.values.map(\.continuation)
        }
    }

    private let state = Lock(State())

    /// Creates a closed gate.
    public init() {}

    /// Lets every held reply go on, and every later one pass without waiting.
    public func open() {
        let held = state.withLock { state in
            state.isOpen = true
            defer { state.held.removeAll() }
            return Array(state.held.values)
        }
        for continuation in held { continuation.resume() }
    }

    /// Whether the gate has been opened.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// The number of replies that have reached the gate so far, held or passed.
    public var arrivals: Int { state.withLock { $0.arrivals } }

    /// Returns once `count` replies have reached the gate (at once if they have), or when the calling task is
    /// cancelled.
    public func waitForArrivals(_ count: Int = 1) async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    guard state.arrivals < count, !Task.isCancelled else { return true }
                    state.watchers[id] = (count, continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.watchers.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    /// Counts a reply in, then holds it until the gate opens.
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    func pass() async throws {
        let (isOpen, ready, id) = state.withLock { state in
            state.arrivals += 1
            defer { state.nextID += 1 }
            return (state.isOpen, state.takeSatisfiedWatchers(), state.nextID)
        }
        for watcher in ready { watcher.resume() }
        if isOpen { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.isOpen { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.held[id] = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            state.withLock { $0.held.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }
}
