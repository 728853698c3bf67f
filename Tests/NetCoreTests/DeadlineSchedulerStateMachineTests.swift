import Synchronization
import Testing

@testable import NetCore

/// The deadline scheduler's decisions as plain values, without a clock or a task: which deadlines are due and when
/// the one timer wakes.
@Suite("Deadline scheduler state machine")
struct DeadlineSchedulerStateMachineTests {
    typealias Machine = DeadlineScheduler.StateMachine

    /// The numbers of the actions that ran.
    final class Fired: Sendable {
        private let values = Mutex<[Int]>([])
        var numbers: [Int] { values.withLock { $0.sorted() } }
        func action(_ number: Int) -> @Sendable () -> Void { { self.values.withLock { $0.append(number) } } }
    }

    let origin = ContinuousClock.now
    func at(_ milliseconds: Int) -> ContinuousClock.Instant { origin + .milliseconds(milliseconds) }

    @Test("the first deadline starts the timer; a later one keeps it; an earlier one starts a timer that wakes sooner")
    func arming() {
        var machine = Machine()
        let fired = Fired()
        let first = machine.schedule(at(100), now: at(0), action: fired.action(1))
        #expect(first.timer == .start(generation: 1, wake: at(100)))
        let later = machine.schedule(at(200), now: at(10), action: fired.action(2))
        #expect(later.timer == .keep)
        let earlier = machine.schedule(at(50), now: at(20), action: fired.action(3))
        #expect(earlier.timer == .start(generation: 2, wake: at(50)))
        #expect(Set([first.ticket, later.ticket, earlier.ticket]).count == 3)
        #expect(machine.entries.count == 3)
    }

    @Test("a deadline already passed gets no ticket and leaves the timer alone: the caller acts at once")
    func passed() {
        var machine = Machine()
        let fired = Fired()
        for (deadline, now) in [(at(0), at(0)), (at(5), at(10))] {
            let scheduled = machine.schedule(deadline, now: now, action: fired.action(1))
            #expect(scheduled.ticket == nil)
            #expect(scheduled.timer == .keep)
        }
        #expect(machine.entries.isEmpty)
        #expect(machine.timer == nil)
    }

    @Test("the timer runs what is due, forgets it, and wakes next at the earliest deadline left, or stops")
    func firing() {
        var machine = Machine()
        let fired = Fired()
        _ = machine.schedule(at(100), now: at(0), action: fired.action(1))
        _ = machine.schedule(at(100), now: at(0), action: fired.action(2))
        _ = machine.schedule(at(300), now: at(0), action: fired.action(3))
        _ = machine.schedule(at(200), now: at(0), action: fired.action(4))

        let first = machine.timerFired(generation: 1, now: at(100))
        for action in first.due { action() }
        #expect(fired.numbers == [1, 2])
        #expect(first.timer == .start(generation: 2, wake: at(200)))
        #expect(machine.entries.count == 2)

        // Woken late: everything due by then runs.
        let second = machine.timerFired(generation: 2, now: at(350))
        for action in second.due { action() }
        #expect(fired.numbers == [1, 2, 3, 4])
        #expect(second.timer == .keep)
        #expect(machine.timer == nil)
        #expect(machine.entries.isEmpty)
    }

    @Test("a timer that was replaced changes nothing when it wakes")
    func staleTimer() {
        var machine = Machine()
        let fired = Fired()
        _ = machine.schedule(at(100), now: at(0), action: fired.action(1))
        _ = machine.schedule(at(50), now: at(0), action: fired.action(2))
        let stale = machine.timerFired(generation: 1, now: at(100))
        #expect(stale.due.isEmpty)
        #expect(stale.timer == .keep)
        #expect(machine.entries.count == 2)
    }

    @Test("a cancelled deadline is forgotten at once and never runs; cancelling one that ran says so")
    func cancelling() {
        var machine = Machine()
        let fired = Fired()
        let kept = machine.schedule(at(100), now: at(0), action: fired.action(1))
        let dropped = machine.schedule(at(100), now: at(0), action: fired.action(2))
        let wasWaiting = machine.cancel(dropped.ticket!)
        #expect(wasWaiting)
        #expect(machine.entries.count == 1)
        for action in machine.timerFired(generation: 1, now: at(100)).due { action() }
        #expect(fired.numbers == [1])
        let keptWasWaiting = machine.cancel(kept.ticket!)
        let droppedWasWaiting = machine.cancel(dropped.ticket!)
        #expect(!keptWasWaiting)
        #expect(!droppedWasWaiting)
    }

    @Test("once every deadline is cancelled, the timer that wakes finds nothing and stops")
    func allCancelled() {
        var machine = Machine()
        let fired = Fired()
        let tickets = (1...64).map { machine.schedule(at(1000 + $0), now: at(0), action: fired.action($0)).ticket! }
        let cancelled = tickets.map { machine.cancel($0) }
        #expect(cancelled.allSatisfy { $0 })
        #expect(machine.entries.isEmpty)
        let woken = machine.timerFired(generation: 1, now: at(1001))
        #expect(woken.due.isEmpty)
        #expect(woken.timer == .keep)
        #expect(machine.timer == nil)
        #expect(fired.numbers.isEmpty)
    }
}

/// The scheduler with its timer task: real waits, each bounded by the deadlines it schedules.
@Suite("Deadline scheduler", .timeLimit(.minutes(10)))
struct DeadlineSchedulerTests {
    @Test("a deadline's action runs once it passes")
    func fires() async {
        let scheduler = DeadlineScheduler()
        let (ran, signal) = AsyncStream.makeStream(of: Void.self)
        let ticket = scheduler.schedule(at: .now + .milliseconds(20)) { signal.yield() }
        var iterator = ran.makeAsyncIterator()
        await iterator.next()
        #expect(scheduler.cancel(ticket))
    }

    @Test("a cancelled deadline never runs, though a later one does")
    func cancelled() async {
        let scheduler = DeadlineScheduler()
        let fired = DeadlineSchedulerStateMachineTests.Fired()
        let dropped = scheduler.schedule(at: .now + .milliseconds(10), fired.action(1))
        #expect(!scheduler.cancel(dropped))
        let (ran, signal) = AsyncStream.makeStream(of: Void.self)
        _ = scheduler.schedule(at: .now + .milliseconds(30)) { signal.yield() }
        var iterator = ran.makeAsyncIterator()
        await iterator.next()
        // The timer ran everything due by then: the first deadline, had it still been waiting, would have run first.
        #expect(fired.numbers.isEmpty)
    }

    @Test("a deadline earlier than the one the timer waits for still runs on time")
    func earlierDeadline() async {
        let scheduler = DeadlineScheduler()
        let fired = DeadlineSchedulerStateMachineTests.Fired()
        let far = scheduler.schedule(at: .now + .seconds(600), fired.action(1))
        let (ran, signal) = AsyncStream.makeStream(of: Void.self)
        _ = scheduler.schedule(at: .now + .milliseconds(20)) { signal.yield() }
        var iterator = ran.makeAsyncIterator()
        await iterator.next()
        #expect(!scheduler.cancel(far))
        #expect(fired.numbers.isEmpty)
    }

    @Test("a deadline already passed runs its action before schedule returns")
    func passed() {
        let scheduler = DeadlineScheduler()
        let fired = DeadlineSchedulerStateMachineTests.Fired()
        let ticket = scheduler.schedule(at: .now - .milliseconds(1), fired.action(1))
        #expect(fired.numbers == [1])
        #expect(scheduler.cancel(ticket))
    }
}
