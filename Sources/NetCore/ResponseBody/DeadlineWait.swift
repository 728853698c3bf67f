import NetKitLock

/// Waits for an iterator's next element until a deadline, wait after wait, with one timer for all of them: each wait
/// runs in a child task beside a watcher, and when the timer finds the deadline passed the watcher wins, the wait is
/// cancelled (a transport's iterator stops its transfer then) and ``Expired`` is thrown.
///
/// One place for what a streamed body's timeouts (``ResponseBody/bounded(by:)``) and a transport's per-read idle
/// timeout (AsyncHTTPClientTransport's) both need. Make one per iterator and use it for every wait of that iterator.
///
/// Why one timer: a sleeping task that is cancelled stays queued in the runtime's timer until its deadline would
/// have come (measured on Linux, Swift 6.3.1: about 750 bytes each). A timer per element would keep one such sleep
/// per chunk alive for a whole timeout: 500,000 one-byte chunks under a 120 s timeout held 359 MiB. Here a wait that
/// ends before its deadline leaves nothing behind, and the timer wakes at most once per deadline.
package final class DeadlineWait: Sendable {
    /// The deadline passed before the next element came.
    package struct Expired: Error {
        package init() {}
    }

    /// The iterator, handed to the child task that waits on it and back.
    ///
    /// `@unchecked Sendable`: one task touches it at a time. The caller hands it to one child per wait, and the task
    /// group does not return before that child has finished, so neither the caller nor the next wait overlaps it.
    private final class Box<Iterator: AsyncIteratorProtocol>: @unchecked Sendable {
        var iterator: Iterator

        init(_ iterator: Iterator) {
            self.iterator = iterator
        }
    }

    /// The wait in progress and the timer that watches it.
    private struct State {
        /// The wait in progress: its number, its deadline, and the watcher to end when that has passed.
        var wait: (number: UInt64, deadline: ContinuousClock.Instant, watcher: CheckedContinuation<Void, any Error>)?
        /// The number of the last wait begun.
        var waits: UInt64 = 0
        /// The running timer, if any: its number, its task, and when it wakes. It ends when it wakes to find no wait
        /// in progress, or another timer in its place.
        var timer: (number: UInt64, task: Task<Void, Never>, wake: ContinuousClock.Instant)?
        /// The number of the last timer started.
        var timers: UInt64 = 0
    }

    private let state = Lock(State())

    package init() {}

    /// How many timers this waiter has started: one for waits whose elements come in time, however many.
    package var timersStarted: UInt64 { state.withLock { $0.timers } }

    deinit {
        state.withLock { $0.timer?.task }?.cancel()
    }

    /// The next element of `iterator`, or `nil` at its end, if either comes before `deadline`.
    /// - Throws: ``Expired`` when the deadline passed first, or the iterator's error.
    package func next<Iterator: AsyncIteratorProtocol>(
        _ iterator: inout Iterator, until deadline: ContinuousClock.Instant
    ) async throws -> Iterator.Element? where Iterator: SendableMetatype, Iterator.Element: Sendable {
        let box = Box(iterator)
        defer { iterator = box.iterator }
        let number = state.withLock { state in
            state.waits &+= 1
            return state.waits
        }
        return try await withThrowingTaskGroup(of: Iterator.Element?.self) { group in
            group.addTask { try await box.iterator.next() }
            group.addTask {
                try await self.watch(number, until: deadline)
                return nil
            }
            defer { group.cancelAll() }
            // The first to finish decides: an element (or the end), or the watcher (it only ever throws).
            return try await group.next() ?? nil
        }
    }

    /// Returns never: throws ``Expired`` once the timer finds `deadline` passed, `CancellationError` when the wait
    /// ended first (its group cancels the watcher).
    private func watch(_ number: UInt64, until deadline: ContinuousClock.Instant) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (watcher: CheckedContinuation<Void, any Error>) in
                enum Start { case watching, expired, cancelled }
                let start = state.withLock { state -> Start in
                    if Task.isCancelled { return .cancelled }
                    if ContinuousClock.now >= deadline { return .expired }
                    state.wait = (number, deadline, watcher)
                    if let timer = state.timer, timer.wake <= deadline { return .watching }
                    // No timer, or one that wakes too late: a timer for this deadline (the other ends on its own).
                    state.timer?.task.cancel()
                    state.timers &+= 1
                    state.timer = (state.timers, Self.startTimer(state.timers, for: self, wakingAt: deadline), deadline)
                    return .watching
                }
                switch start {
                case .watching: break
                case .expired: watcher.resume(throwing: Expired())
                case .cancelled: watcher.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let watcher = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let wait = state.wait, wait.number == number else { return nil }
                state.wait = nil
                return wait.watcher
            }
            watcher?.resume(throwing: CancellationError())
        }
    }

    /// A timer that sleeps until `wake`, ends the wait in progress if its deadline has passed, and sleeps again
    /// until the next deadline; it ends when it wakes to find no wait in progress, or when cancelled. It holds the
    /// waiter weakly, so that dropping the iterator ends it.
    private static func startTimer(_ number: UInt64, for owner: DeadlineWait, wakingAt wake: ContinuousClock.Instant)
        -> Task<Void, Never>
    {
        Task { [weak owner] in
            var wake = wake
            while true {
                do { try await Task.sleep(until: wake, clock: .continuous) } catch { return }
                guard let next = owner?.timerWoke(number) else { return }
                wake = next
            }
        }
    }

    /// Called by timer `number` when it wakes: ends the wait in progress if its deadline has passed; returns when to wake
    /// next, or `nil` (the timer ends) when no wait is in progress.
    private func timerWoke(_ number: UInt64) -> ContinuousClock.Instant? {
        typealias Outcome = (expired: CheckedContinuation<Void, any Error>?, next: ContinuousClock.Instant?)
        let (expired, next) = state.withLock { state -> Outcome in
            // A timer replaced by one that wakes sooner ends; the other watches in its place.
            guard state.timer?.number == number else { return (nil, nil) }
            guard let wait = state.wait else {
                state.timer = nil
                return (nil, nil)
            }
            guard ContinuousClock.now >= wait.deadline else {
                state.timer?.wake = wait.deadline
                return (nil, wait.deadline)
            }
            state.wait = nil
            state.timer = nil
            return (wait.watcher, nil)
        }
        expired?.resume(throwing: Expired())
        return next
    }
}
