extension RequestQueue {
    /// Every decision of a ``RequestQueue`` as a plain value: whether a request takes one of its origin's slots now
    /// or waits, which waiter the slot a request gives back goes to, what a waiter that leaves changes.
    ///
    /// Per origin it counts the requests that hold a slot and keeps the waiters, by number, in the order they
    /// came. A slot given back goes straight to the first waiter (the count stays), so a waiter is never overtaken
    /// by a request that came later; so too there are waiters only while every slot is held. A waiter that leaves
    /// (cancelled, timed out) is only taken out of the line: it held no slot, so it frees none. An origin with
    /// nothing held and nobody waiting is forgotten, so memory is bounded by the origins in use, not by every host
    /// ever asked for.
    ///
    /// No task, no continuation, no clock: ``RequestQueue`` resumes the waiters it names and times them out.
    struct StateMachine {
        /// What a request asking for a slot does.
        enum Acquisition: Equatable {
            /// A slot was free and is now the request's: send it.
            case proceed
            /// Every slot is held: the request waits, last in its origin's line, until ``release(_:)`` names it.
            case wait
        }

        /// One origin's slots and line.
        private struct Origin {
            /// The requests holding a slot.
            var held = 0
            var line = Line()
        }

        /// The waiters of one origin, first come first: an array read from a moving head, so that handing a slot
        /// to the first waiter does not shift every other one.
        private struct Line {
            private var waiters: [UInt64] = []
            private var head = 0

            var isEmpty: Bool { head == waiters.count }
            var all: ArraySlice<UInt64> { waiters[head...] }

            mutating func append(_ waiter: UInt64) { waiters.append(waiter) }

            mutating func popFirst() -> UInt64? {
                guard head < waiters.count else { return nil }
                let first = waiters[head]
                head += 1
                compact()
                return first
            }

            /// Takes `waiter` out of the line; `false` when it was not in it.
            mutating func remove(_ waiter: UInt64) -> Bool {
                guard let index = waiters[head...].firstIndex(of: waiter) else { return false }
                waiters.remove(at: index)
                compact()
                return true
            }

            /// Drops what the head has passed, once it is most of the array.
            private mutating func compact() {
                if head == waiters.count {
                    waiters.removeAll()
                    head = 0
                } else if head >= 32, head * 2 >= waiters.count {
                    waiters.removeFirst(head)
                    head = 0
                }
            }
        }

        /// The most requests of one origin that hold a slot at once (at least 1).
        let limit: Int
        private var origins: [HTTPOrigin: Origin] = [:]
        /// Waiters are numbered from one sequence, so that no two are ever the same.
        private var lastWaiter: UInt64 = 0

        /// A machine allowing `limit` requests per origin at once; a limit below 1 counts as 1 (none could ever be
        /// sent otherwise).
        init(limit: Int) {
            self.limit = max(1, limit)
        }

        /// A new waiter's number: it names the waiter when it asks, when it is resumed and when it leaves.
        mutating func newWaiter() -> UInt64 {
            lastWaiter += 1
            return lastWaiter
        }

        /// Takes a slot of `origin` if one is free; `false` (and nothing changes) when every slot is held. The way in
        /// that needs no waiter: most requests find a slot free, and need no continuation to wait on.
        mutating func acquireIfFree(_ origin: HTTPOrigin) -> Bool {
            let held = origins[origin]?.held ?? 0
            // Waiters exist only while every slot is held: a free slot means nobody is in the line to overtake.
            guard held < limit else { return false }
            origins[origin, default: Origin()].held = held + 1
            return true
        }

        /// `waiter` asks for a slot of `origin`: it takes a free one, or waits last in the origin's line.
        mutating func acquire(_ origin: HTTPOrigin, waiter: UInt64) -> Acquisition {
            if acquireIfFree(origin) { return .proceed }
            origins[origin, default: Origin()].line.append(waiter)
            return .wait
        }

        /// A request gives back its slot of `origin`: the first waiter, who now holds that slot and is to be resumed;
        /// `nil` when nobody waits, and the slot is free. A release when no slot of `origin` is held changes nothing.
        mutating func release(_ origin: HTTPOrigin) -> UInt64? {
            guard var entry = origins[origin], entry.held > 0 else { return nil }
            if let next = entry.line.popFirst() {
                origins[origin] = entry
                return next
            }
            entry.held -= 1
            origins[origin] = entry.held == 0 ? nil : entry
            return nil
        }

        /// `waiter` stops waiting for a slot of `origin` (its task was cancelled, or it waited too long); `true` when
        /// it was in the line and is now out of it. `false` when it was not: it has been handed a slot already (and
        /// holds it, to give back), or it left already, or never waited.
        mutating func leave(_ waiter: UInt64, origin: HTTPOrigin) -> Bool {
            guard var entry = origins[origin], entry.line.remove(waiter) else { return false }
            origins[origin] = entry.held == 0 && entry.line.isEmpty ? nil : entry
            return true
        }

        /// The number of requests holding a slot of `origin`.
        func held(_ origin: HTTPOrigin) -> Int { origins[origin]?.held ?? 0 }

        /// The waiters for a slot of `origin`, first come first.
        func waiters(_ origin: HTTPOrigin) -> [UInt64] { Array(origins[origin]?.line.all ?? []) }

        /// The number of origins remembered: those with a slot held or a request waiting.
        var originCount: Int { origins.count }

        /// The number of requests waiting, every origin together.
        var waiterCount: Int { origins.values.reduce(0) { $0 + $1.line.all.count } }
    }
}
