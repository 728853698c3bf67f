import NetKitLock

/// The calls identical requests share while they are in flight: one engine's (and all its copies') registry.
///
/// The first request of a key starts the call in a task of its own, so that the call outlives any one caller;
/// identical requests that arrive before it ends wait for its result instead of calling again. A caller that is
/// cancelled leaves at once with `CancellationError`, and the others go on waiting; the call itself is cancelled
/// only when every caller has left. Once the call has ended, its key is free: the next request calls again.
package final class RequestCoalescer: Sendable {
    private typealias Waiter = CheckedContinuation<(exchange: Exchange, started: Bool), any Error>
    private typealias Machine = StateMachine<CoalescingKey, Waiter, Task<Void, Never>, CheckedContinuation<Void, Never>>

    /// Every decision is the machine's; this type resumes the callers and starts and cancels the calls it names.
    private let state = Lock(Machine())

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
            state.withLock { $0.watch(until: count, continuation) }?.resume()
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
        let caller = state.withLock { $0.newCaller() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                let (arrival, watchers) = state.withLock {
                    machine -> (Machine.Arrival, [CheckedContinuation<Void, Never>]) in
                    let (arrival, watchers) = machine.arrive(
                        caller, key: key, waiter: continuation, isCancelled: Task.isCancelled)
                    if case .lead(let flight) = arrival {
                        // Made in the lock, so that a caller leaving finds the handle to cancel; it starts once the
                        // lock is released, and never needs the caller's task to go on.
                        let task = Task {
                            let result: Result<Exchange, any Error>
                            do {
                                result = .success(try await call(request))
                            } catch {
                                result = .failure(error)
                            }
                            self.finish(key, flight, with: result)
                        }
                        machine.attach(task, to: flight, key: key)?.cancel()
                    }
                    return (arrival, watchers)
                }
                if arrival == .refuse { continuation.resume(throwing: CancellationError()) }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            leave(key, caller)
        }
    }

    /// Hands the call's result to everyone still waiting, and frees the key.
    private func finish(_ key: CoalescingKey, _ flight: UInt64, with result: Result<Exchange, any Error>) {
        for delivery in state.withLock({ $0.callEnded(flight, key: key) }) {
            delivery.waiter.resume(with: result.map { ($0, delivery.started) })
        }
    }

    /// Lets `caller` go with `CancellationError`; the last one to go cancels the call.
    private func leave(_ key: CoalescingKey, _ caller: UInt64) {
        switch state.withLock({ $0.leave(caller, key: key) }) {
        case .none:
            break
        case .release(let waiter):
            waiter.resume(throwing: CancellationError())
        case .releaseAndCancel(let waiter, let call):
            waiter.resume(throwing: CancellationError())
            call?.cancel()
        }
    }
}
