import NetKitLock

/// The calls identical requests share while they are in flight: one engine's (and all its copies') registry.
///
/// The first request of a key starts the call in a task of its own, so that the call outlives any one caller;
/// identical requests that arrive before it ends wait for its result instead of calling again. A caller that is
/// cancelled leaves at once with `CancellationError`, and the others go on waiting; the call itself is cancelled
/// only when every caller has left. Once the call has ended, its key is free: the next request calls again.
package final class RequestCoalescer: Sendable {
    private typealias Waiter = CheckedContinuation<(exchange: Exchange, started: Bool), any Error>

    private struct Flight {
        /// Tells this flight from a later one of the same key.
        let number: UInt64
        /// The caller that started the call.
        let starter: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: Waiter]
    }

    private struct State {
        var flights: [CoalescingKey: Flight] = [:]
        var lastNumber: UInt64 = 0
        var callsStarted = 0
        /// Tests waiting for a number of callers (``waitUntilWaiting(_:)``).
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        var waitingCallers: Int { flights.values.reduce(0) { $0 + $1.waiters.count } }

        /// The watchers whose count has been reached, removed.
        mutating func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            guard !watchers.isEmpty else { return [] }
            let waiting = waitingCallers
            let ready = watchers.filter { $0.count <= waiting }.map(\.continuation)
            watchers.removeAll { $0.count <= waiting }
            return ready
        }
    }

    private let state = Lock(State())

    package init() {}

    /// The number of calls started so far (for tests).
    package var callsStarted: Int { state.withLock { $0.callsStarted } }

    /// The number of callers waiting for calls in flight (for tests).
    package var waitingCallers: Int { state.withLock { $0.waitingCallers } }

    /// Returns once at least `count` callers wait for calls in flight at the same time: how a test knows that
    /// requests have joined a call before it lets the call answer. It waits for as long as it takes; bound it
    /// with a time limit.
    package func waitUntilWaiting(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.waitingCallers >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// The result of `call(request)`, shared with every identical request in flight at the same time.
    /// - Returns: The exchange, and whether this caller started the call (the others did not see it made).
    /// - Throws: The call's error, or `CancellationError` as soon as the calling task is cancelled.
    nonisolated(nonsending) package func run(
        _ key: CoalescingKey,
        _ request: TransportRequest,
        call: @escaping StageNext
    ) async throws -> (exchange: Exchange, started: Bool) {
        let caller: UInt64 = state.withLock { state -> UInt64 in
            state.lastNumber += 1
            return state.lastNumber
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                let (cancelled, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if Task.isCancelled { return (true, []) }
                    if state.flights[key] != nil {
                        state.flights[key]?.waiters[caller] = continuation
                        return (false, state.takeSatisfiedWatchers())
                    }
                    state.lastNumber += 1
                    state.callsStarted += 1
                    let number = state.lastNumber
                    state.flights[key] = Flight(
                        number: number, starter: caller, task: nil, waiters: [caller: continuation])
                    // The task starts once the lock is released; it never needs the caller's task to go on.
                    state.flights[key]?.task = Task {
                        let result: Result<Exchange, any Error>
                        do {
                            result = .success(try await call(request))
                        } catch {
                            result = .failure(error)
                        }
                        self.finish(key, number, with: result)
                    }
                    return (false, state.takeSatisfiedWatchers())
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            leave(key, caller)
        }
    }

    /// Hands the call's result to everyone still waiting, and frees the key.
    private func finish(_ key: CoalescingKey, _ number: UInt64, with result: Result<Exchange, any Error>) {
        let flight = state.withLock { state -> Flight? in
            guard state.flights[key]?.number == number else { return nil }
            return state.flights.removeValue(forKey: key)
        }
        guard let flight else { return }
        for (caller, waiter) in flight.waiters {
            waiter.resume(with: result.map { ($0, caller == flight.starter) })
        }
    }

    /// Lets `caller` go with `CancellationError`; the last one to go cancels the call.
    private func leave(_ key: CoalescingKey, _ caller: UInt64) {
        let (waiter, task) = state.withLock { state -> (Waiter?, Task<Void, Never>?) in
            guard var flight = state.flights[key], let waiter = flight.waiters.removeValue(forKey: caller) else {
                return (nil, nil)
            }
            if flight.waiters.isEmpty {
                state.flights[key] = nil
                return (waiter, flight.task)
            }
            state.flights[key] = flight
            return (waiter, nil)
        }
        waiter?.resume(throwing: CancellationError())
        task?.cancel()
    }
}
