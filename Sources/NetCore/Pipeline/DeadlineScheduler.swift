import Dispatch
import NetKitLock

/// Runs an action when a deadline passes, with one timer for the whole process: the whole-request timeout
/// (``DeadlineStage``) of every request in flight.
///
/// A timer per request (a child task sleeping until its deadline, beside the request's own) cost a task and a sleep
/// per request, and the sleep outlived every request that ended in time: about four times the rest of the engine's
/// CPU (Docs/Performance.md).
/// Here a request adds an entry to a table under a lock and removes it when it ends; one dispatch timer wakes at the
/// earliest deadline (``StateMachine`` decides when). It fires on a queue of its own, not on the cooperative threads
/// that run the requests' tasks.
package final class DeadlineScheduler: Sendable {
    /// The process's scheduler.
    package static let shared = DeadlineScheduler()

    /// A scheduled deadline, to cancel.
    package struct Ticket: Sendable {
        /// `nil`: the deadline had passed when it was scheduled, and its action ran at once.
        fileprivate let number: UInt64?
    }

    private struct State: ~Copyable {
        var machine = StateMachine()
        /// The one timer, made when the first deadline is scheduled.
        var timer: (any DispatchSourceTimer)?
    }

    private let state = Lock(State())
    private let queue = DispatchQueue(label: "NetKit.DeadlineScheduler")

    package init() {}

    /// Runs `action` once `deadline` passes, unless ``cancel(_:)`` comes first; at once (before returning) when it
    /// has passed already. `action` runs on the scheduler's queue: it must be quick (a `decide`, a `cancel()`).
    package func schedule(
        at deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void
    ) -> Ticket {
        let now = ContinuousClock.now
        let number = state.withLock { state in
            let (number, timer) = state.machine.schedule(deadline, now: now, action: action)
            arm(timer, now: now, in: &state)
            return number
        }
        if number == nil { action() }
        return Ticket(number: number)
    }

    /// Forgets `ticket`'s deadline; `true` when its action has run or is running (the deadline passed first).
    @discardableResult
    package func cancel(_ ticket: Ticket) -> Bool {
        guard let number = ticket.number else { return true }
        return !state.withLock { $0.machine.cancel(number) }
    }

    /// Sets the timer to wake when `action` says.
    private func arm(_ action: StateMachine.TimerAction, now: ContinuousClock.Instant, in state: inout State) {
        guard case .start(_, let wake) = action else { return }
        let timer: any DispatchSourceTimer
        if let existing = state.timer {
            timer = existing
        } else {
            timer = DispatchSource.makeTimerSource(queue: queue)
            timer.setEventHandler { [self] in fire() }
            state.timer = timer
            timer.resume()
        }
        // The dispatch clock and the continuous clock may drift apart (a suspended machine), and a deadline may lie
        // years ahead: the timer waits a day at most, and `fire` reads the continuous clock and sets the timer again
        // for whatever is not due yet.
        let (seconds, attoseconds) = min(max(.zero, wake - now), .seconds(86_400)).components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), leeway: .milliseconds(1))
    }

    private func fire() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [@Sendable () -> Void] in
            guard let generation = state.machine.timer?.generation else { return [] }
            let (due, timer) = state.machine.timerFired(generation: generation, now: now)
            arm(timer, now: now, in: &state)
            return due
        }
        for action in due { action() }
    }
}
