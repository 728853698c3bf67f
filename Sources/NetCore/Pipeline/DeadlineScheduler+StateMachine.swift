extension DeadlineScheduler {
    /// The scheduler's decisions without a clock or a task: which deadlines are due, and when the one timer must wake.
    /// Pure, tested without I/O (`DeadlineSchedulerStateMachineTests`).
    ///
    /// One timer runs at a time, waking at the earliest pending deadline. Scheduling a later deadline (the usual case:
    /// requests of one timeout are scheduled in the order their deadlines fall) leaves it alone; an earlier one starts
    /// a new timer, and the one it replaces is stale. A cancelled deadline is forgotten at once, so what is pending is
    /// bounded by the requests in flight, not by how many ran within a timeout.
    struct StateMachine {
        /// A deadline waiting, and what to do when it passes.
        struct Entry {
            let deadline: ContinuousClock.Instant
            let action: @Sendable () -> Void
        }

        /// What the caller must do about the timer.
        enum TimerAction: Equatable {
            /// Nothing: the running timer (or none) is right.
            case keep
            /// Start a timer of this generation that wakes at `wake`, stopping the one before it.
            case start(generation: UInt64, wake: ContinuousClock.Instant)
        }

        /// The deadlines waiting, by ticket number.
        private(set) var entries: [UInt64: Entry] = [:]
        /// The running timer: its generation and when it wakes; `nil` when none runs.
        private(set) var timer: (generation: UInt64, wake: ContinuousClock.Instant)?
        private var lastTicket: UInt64 = 0
        private var lastGeneration: UInt64 = 0

        /// Adds a deadline; `nil` when it has passed already (the caller acts at once).
        mutating func schedule(
            _ deadline: ContinuousClock.Instant, now: ContinuousClock.Instant, action: @escaping @Sendable () -> Void
        ) -> (ticket: UInt64?, timer: TimerAction) {
            guard deadline > now else { return (nil, .keep) }
            lastTicket &+= 1
            entries[lastTicket] = Entry(deadline: deadline, action: action)
            if let timer, timer.wake <= deadline { return (lastTicket, .keep) }
            return (lastTicket, startTimer(waking: deadline))
        }

        /// Forgets a deadline; `false` when it is no longer waiting (its action ran, or is about to).
        mutating func cancel(_ ticket: UInt64) -> Bool {
            entries.removeValue(forKey: ticket) != nil
        }

        /// The timer of `generation` woke at `now`: the actions now due (their deadlines forgotten), and the timer
        /// for the rest. A stale timer changes nothing.
        mutating func timerFired(generation: UInt64, now: ContinuousClock.Instant) -> (
            due: [@Sendable () -> Void], timer: TimerAction
        ) {
            guard let timer, timer.generation == generation else { return ([], .keep) }
            var due: [@Sendable () -> Void] = []
            var earliest: ContinuousClock.Instant?
            for (ticket, entry) in entries {
                if entry.deadline <= now {
                    due.append(entry.action)
                    entries[ticket] = nil
                } else if earliest.map({ entry.deadline < $0 }) ?? true {
                    earliest = entry.deadline
                }
            }
            guard let earliest else {
                self.timer = nil
                return (due, .keep)
            }
            return (due, startTimer(waking: earliest))
        }

        private mutating func startTimer(waking wake: ContinuousClock.Instant) -> TimerAction {
            lastGeneration &+= 1
            timer = (lastGeneration, wake)
            return .start(generation: lastGeneration, wake: wake)
        }
    }
}
