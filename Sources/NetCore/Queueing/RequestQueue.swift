import NetKitLock

/// The request slots of every origin, when ``RequestExecutor/Configuration/maximumRequestsPerHost`` is set: one
/// configuration's (and all its copies') line.
///
/// A request takes one of its origin's slots before it goes to the transport and gives it back when the transport is
/// done with it; when every slot is held it waits, behind those that came before it, until one is given back. Its
/// wait ends in a slot, in `CancellationError` (its task was cancelled: it is only taken out of the line) or, after
/// ``queueTimeout``, in ``QueueTimeoutError``. Every decision is the ``StateMachine``'s; this type parks and resumes
/// the waiters it names, never under its lock, and times them out on the process's one timer
/// (``DeadlineScheduler``).
package final class RequestQueue: Sendable {
    /// A slot held: proof that the request may go to the transport, to hand back to ``release(_:)`` once.
    package struct Slot: Sendable {
        /// The origin whose slot it is.
        package let origin: HTTPOrigin
    }

    /// A waiter parked for a slot.
    private struct Parked {
        let continuation: CheckedContinuation<Void, any Error>
        /// When it began to wait, for the error that says how long it did.
        let since: ContinuousClock.Instant
        /// Its ``queueTimeout``, once scheduled: cancelled when it gets a slot or leaves first.
        var ticket: DeadlineScheduler.Ticket?
    }

    private struct State {
        var machine: StateMachine
        /// The continuation of each waiter in the machine's lines: there exactly while the machine has it waiting
        /// (both change under one lock), so that each is resumed once.
        var parked: [UInt64: Parked] = [:]
    }

    /// What a waiter's wait came to, decided under the lock and carried out after it.
    private enum Outcome {
        case refuse, proceed, wait
    }

    /// The most requests of one origin that hold a slot at once (at least 1).
    package let maximumPerOrigin: Int
    /// How long a request may wait for a slot before it fails with ``QueueTimeoutError``; `nil`: as long as it
    /// takes (its own timeout, when it has one, still ends the wait).
    package let queueTimeout: Duration?
    private let state: Lock<State>

    /// A queue of `maximumPerOrigin` slots per origin (a number below 1 counts as 1).
    package init(maximumPerOrigin: Int, queueTimeout: Duration?) {
        let machine = StateMachine(limit: maximumPerOrigin)
        self.maximumPerOrigin = machine.limit
        self.queueTimeout = queueTimeout
        self.state = Lock(State(machine: machine))
    }

    /// Returns once the caller holds a slot of `origin`: at once when one is free, else when the request before it
    /// gives one back. `onQueued` is called, on the caller's task, when it has to wait (not when a slot is free).
    /// - Throws: `CancellationError` when the calling task is cancelled while it waits; ``QueueTimeoutError`` when
    ///   it waits longer than ``queueTimeout``. Either way it holds no slot.
    nonisolated(nonsending) package func acquire(_ origin: HTTPOrigin, onQueued: () -> Void) async throws -> Slot {
        // Most requests find a slot free: no waiter number, continuation or cancellation handler for them.
        let waiter = state.withLock { state -> UInt64? in
            state.machine.acquireIfFree(origin) ? nil : state.machine.newWaiter()
        }
        guard let waiter else { return Slot(origin: origin) }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let since = ContinuousClock.now
                let outcome = state.withLock { state -> Outcome in
                    // Read under the lock: a cancellation after it finds the waiter in the line (its handler takes
                    // the same lock), one before it is seen here. Either way the waiter cannot be left parked.
                    if Task.isCancelled { return .refuse }
                    guard state.machine.acquire(origin, waiter: waiter) == .wait else { return .proceed }
                    state.parked[waiter] = Parked(continuation: continuation, since: since)
                    return .wait
                }
                switch outcome {
                case .refuse:
                    continuation.resume(throwing: CancellationError())
                case .proceed:
                    // A slot came free since the first look.
                    continuation.resume()
                case .wait:
                    onQueued()
                    if let queueTimeout { scheduleTimeout(of: waiter, origin, at: since + queueTimeout) }
                }
            }
        } onCancel: {
            leave(waiter, origin) { _ in CancellationError() }
        }
        return Slot(origin: origin)
    }

    /// Gives `slot` back: to the first request waiting for its origin, which goes on with it, or to no one.
    package func release(_ slot: Slot) {
        let next = state.withLock { state -> Parked? in
            guard let waiter = state.machine.release(slot.origin) else { return nil }
            let next = state.parked.removeValue(forKey: waiter)
            assert(next != nil, "RequestQueue: waiter \(waiter) was handed a slot but is not parked")
            return next
        }
        guard let next else { return }
        if let ticket = next.ticket { DeadlineScheduler.shared.cancel(ticket) }
        next.continuation.resume()
    }

    /// Ends `waiter`'s wait with `queueTimeout` once `deadline` passes, unless it has a slot or has left by then.
    private func scheduleTimeout(of waiter: UInt64, _ origin: HTTPOrigin, at deadline: ContinuousClock.Instant) {
        let limit = maximumPerOrigin
        // Scheduled outside the lock: a deadline already past runs its action at once, and the action takes the lock.
        let ticket = DeadlineScheduler.shared.schedule(at: deadline) { [self] in
            leave(waiter, origin) { since in
                QueueTimeoutError(origin: origin, limit: limit, waited: ContinuousClock.now - since)
            }
        }
        let attached = state.withLock { state -> Bool in
            guard state.parked[waiter] != nil else { return false }
            state.parked[waiter]?.ticket = ticket
            return true
        }
        // The waiter got its slot, was cancelled or timed out before its ticket could be kept: nothing will cancel it.
        if !attached { DeadlineScheduler.shared.cancel(ticket) }
    }

    /// Takes `waiter` out of `origin`'s line, if it still waits there, and resumes it with the error `reason` makes
    /// of the instant it began to wait. One that has been handed a slot already keeps it.
    private func leave(_ waiter: UInt64, _ origin: HTTPOrigin, reason: (ContinuousClock.Instant) -> any Error) {
        let parked = state.withLock { state -> Parked? in
            guard state.machine.leave(waiter, origin: origin) else { return nil }
            return state.parked.removeValue(forKey: waiter)
        }
        guard let parked else { return }
        if let ticket = parked.ticket { DeadlineScheduler.shared.cancel(ticket) }
        parked.continuation.resume(throwing: reason(parked.since))
    }

    /// The number of requests holding a slot of `origin` (for tests).
    package func held(_ origin: HTTPOrigin) -> Int { state.withLock { $0.machine.held(origin) } }

    /// The number of requests waiting for a slot, every origin together (for tests).
    package var waiting: Int { state.withLock { $0.machine.waiterCount } }

    /// The number of origins the queue remembers: those with a slot held or a request waiting (for tests).
    package var originCount: Int { state.withLock { $0.machine.originCount } }
}
