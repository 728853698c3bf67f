import Synchronization

/// A one-way latch the event stream waits on between its first and second event, opened by whoever has seen the
/// first one arrive: so a client that only hands events over once the body has ended never sees the second.
package final class EventGate: Sendable {
    private enum State {
        case closed(waiters: [UInt64: CheckedContinuation<Bool, Never>], nextID: UInt64)
        case open
    }

    private let state = Mutex(State.closed(waiters: [:], nextID: 0))

    /// A closed gate.
    package init() {}

    /// Opens the gate for every waiter, present and future.
    package func open() {
        let waiters: [CheckedContinuation<Bool, Never>] = state.withLock { state in
            guard case .closed(let waiters, _) = state else { return [] }
            state = .open
            return Array(waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Whether the gate has been opened.
    package var isOpen: Bool {
        state.withLock { state in
            if case .open = state { return true }
            return false
        }
    }

    /// Waits until the gate opens, at most `limit`: true when it opened, false when the limit passed first or the
    /// waiting task was cancelled.
    package func wait(atMost limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.waitUntilOpen() }
            group.addTask {
                // A bound on the wait, not a stand-in for the signal: the gate normally opens long before.
                try? await Task.sleep(for: limit)
                return false
            }
            let opened = await group.next() ?? false
            group.cancelAll()
            return opened
        }
    }

    private func waitUntilOpen() async -> Bool {
        let id: UInt64? = state.withLock { state in
            guard case .closed(let waiters, let nextID) = state else { return nil }
            state = .closed(waiters: waiters, nextID: nextID + 1)
            return nextID
        }
        guard let id else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow: Bool? = state.withLock { state in
                    switch state {
                    case .open:
                        return true
                    case .closed(var waiters, let nextID):
                        // Cancelled before the continuation was stored: the handler below found nothing to resume.
                        if Task.isCancelled { return false }
                        waiters[id] = continuation
                        state = .closed(waiters: waiters, nextID: nextID)
                        return nil
                    }
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Bool, Never>? = state.withLock { state in
                guard case .closed(var waiters, let nextID) = state else { return nil }
                let waiter = waiters.removeValue(forKey: id)
                state = .closed(waiters: waiters, nextID: nextID)
                return waiter
            }
            waiter?.resume(returning: false)
        }
    }
}
