extension RequestCoalescer {
    /// Every decision of a ``RequestCoalescer`` as a plain value: whether a caller leads a new call, joins the one in
    /// flight for its key or is turned away (it was cancelled already); who gets a call's result, and which of them
    /// started it; what a caller leaving does (the last one to leave cancels the call); when a test's watcher has
    /// seen enough callers waiting.
    ///
    /// A key is free or has one flight: the call in flight and the callers waiting for it. A flight ends in one of
    /// two ways, and either frees the key: its call returns (every caller still waiting gets the result) or every
    /// caller leaves (the call is cancelled, and its late result goes to no one). A caller that leaves while others
    /// stay gets `CancellationError` at once; the call goes on for the others, even when the leaver started it.
    ///
    /// `Waiter` is what the coalescer resumes with a caller's outcome, `Call` the handle of a running call (it is
    /// cancelled through it), `Watcher` what a test waiting for callers is resumed with: continuations and a task in
    /// ``RequestCoalescer``, plain values in tests.
    struct StateMachine<Key: Hashable, Waiter, Call, Watcher> {
        /// What a caller that arrives does.
        enum Arrival: Equatable {
            /// Its task was cancelled before it could wait: resume it with `CancellationError` now.
            case refuse
            /// Start the call of flight `flight` (and hand its handle to ``attach(_:to:key:)``); the caller waits
            /// for it.
            case lead(flight: UInt64)
            /// A call for the key is in flight: the caller waits for its result.
            case join(flight: UInt64)
        }

        /// A caller's share of a call's result.
        struct Delivery {
            let waiter: Waiter
            /// Whether this caller started the call (the others did not see it made).
            let started: Bool
        }

        /// What a caller leaving does.
        enum Leaving {
            /// It was not waiting (it has its result already, or never waited): nothing.
            case none
            /// Resume it with `CancellationError`; the call goes on for the others.
            case release(Waiter)
            /// It was the last one waiting: resume it with `CancellationError` and cancel the call (`nil` when the
            /// call's handle has not been attached yet: ``attach(_:to:key:)`` then says to cancel it).
            case releaseAndCancel(Waiter, Call?)
        }

        private struct Flight {
            /// Tells this flight from a later one of the same key.
            let number: UInt64
            /// The caller that started the call.
            let starter: UInt64
            var call: Call?
            var waiters: [UInt64: Waiter]
        }

        private var flights: [Key: Flight] = [:]
        /// Callers and flights are numbered from one sequence, so that no two are ever the same.
        private var lastNumber: UInt64 = 0
        /// The number of calls started so far.
        private(set) var callsStarted = 0
        /// Tests waiting for a number of callers (``watch(until:_:)``).
        private var watchers: [(count: Int, watcher: Watcher)] = []

        init() {}

        /// The number of callers waiting for calls in flight.
        var waitingCallers: Int { flights.values.reduce(0) { $0 + $1.waiters.count } }

        /// Whether a call for `key` is in flight.
        func isInFlight(_ key: Key) -> Bool { flights[key] != nil }

        /// A new caller's number: it names the caller when it arrives and when it leaves.
        mutating func newCaller() -> UInt64 {
            lastNumber += 1
            return lastNumber
        }

        /// `caller` (whose task is cancelled when `isCancelled`) asks for `key`'s result, to be handed to `waiter`;
        /// also returns the watchers that have now seen enough callers waiting, to be resumed.
        mutating func arrive(_ caller: UInt64, key: Key, waiter: Waiter, isCancelled: Bool) -> (Arrival, [Watcher]) {
            if isCancelled { return (.refuse, []) }
            if let number = flights[key]?.number {
                flights[key]?.waiters[caller] = waiter
                return (.join(flight: number), takeSatisfiedWatchers())
            }
            lastNumber += 1
            callsStarted += 1
            flights[key] = Flight(number: lastNumber, starter: caller, call: nil, waiters: [caller: waiter])
            return (.lead(flight: lastNumber), takeSatisfiedWatchers())
        }

        /// The call of flight `flight` for `key` is running under `call`; returns it when it must be cancelled at
        /// once, because every caller left before it was attached.
        mutating func attach(_ call: Call, to flight: UInt64, key: Key) -> Call? {
            guard flights[key]?.number == flight else { return call }
            flights[key]?.call = call
            return nil
        }

        /// The call of flight `flight` for `key` returned: every caller still waiting, each to be resumed with the
        /// result, and the key is free. Empty when the flight is over already (every caller left).
        mutating func callEnded(_ flight: UInt64, key: Key) -> [Delivery] {
            guard let ended = flights[key], ended.number == flight else { return [] }
            flights[key] = nil
            return ended.waiters.map { Delivery(waiter: $1, started: $0 == ended.starter) }
        }

        /// `caller`, waiting for `key`, leaves (its task was cancelled).
        mutating func leave(_ caller: UInt64, key: Key) -> Leaving {
            guard var flight = flights[key], let waiter = flight.waiters.removeValue(forKey: caller) else {
                return .none
            }
            guard flight.waiters.isEmpty else {
                flights[key] = flight
                return .release(waiter)
            }
            flights[key] = nil
            return .releaseAndCancel(waiter, flight.call)
        }

        /// A test waits until at least `count` callers wait at once; returns `watcher` when they do already.
        mutating func watch(until count: Int, _ watcher: Watcher) -> Watcher? {
            if waitingCallers >= count { return watcher }
            watchers.append((count, watcher))
            return nil
        }

        /// The watchers whose count has been reached, removed.
        private mutating func takeSatisfiedWatchers() -> [Watcher] {
            guard !watchers.isEmpty else { return [] }
            let waiting = waitingCallers
            let ready = watchers.filter { $0.count <= waiting }.map(\.watcher)
            watchers.removeAll { $0.count <= waiting }
            return ready
        }
    }
}

extension RequestCoalescer.StateMachine.Delivery: Equatable where Waiter: Equatable {}

extension RequestCoalescer.StateMachine.Leaving: Equatable where Waiter: Equatable, Call: Equatable {}
