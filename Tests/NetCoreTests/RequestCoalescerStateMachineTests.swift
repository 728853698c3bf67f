import Testing

@testable import NetCore

/// RequestCoalescer's decisions as plain values, without a task, a continuation or a lock: who leads a call, who
/// joins it, who gets its result and as what, what a caller leaving does, when a test's watcher is let go.
@Suite("RequestCoalescer state machine")
struct RequestCoalescerStateMachineTests {
    /// Keys, callers, calls and watchers are named by strings; a waiter is the caller's number.
    typealias Machine = RequestCoalescer.StateMachine<String, UInt64, String, String>

    /// What a script does to the machine.
    enum Event: Sendable {
        /// A caller asks for `key`'s result.
        case arrive(String, key: String)
        /// A caller whose task is cancelled already asks for `key`'s result.
        case arriveCancelled(String, key: String)
        /// The call of `key`'s `nth` flight (0: the latest) gets its handle, named after the key and the flight.
        case attach(key: String, nth: Int = 0)
        /// The call of `key`'s `nth` flight (0: the latest) returns.
        case returns(key: String, nth: Int = 0)
        /// A caller's task is cancelled.
        case leave(String, key: String)
        /// A test waits until `count` callers wait at once.
        case watch(Int, String)
        /// Nothing happens: the counts are read.
        case counts
    }

    /// What the machine said, with callers, calls and watchers by name.
    enum Outcome: Equatable, Sendable {
        case refuse
        case lead(woke: [String] = [])
        case join(woke: [String] = [])
        /// The handle was kept for the flight.
        case attached
        /// Every caller had left: cancel the call as soon as it is attached.
        case cancelAtOnce(String)
        /// Callers by name, and whether each started the call.
        case deliver([String: Bool])
        case nothing
        case release(String)
        /// The last caller left; the call named is cancelled (`nil`: not attached yet).
        case releaseAndCancel(String, call: String?)
        case watching
        case ready(String)
        case counts(waiting: Int, started: Int)
    }

    struct Script: Sendable, CustomTestStringConvertible {
        let name: String
        let steps: [(Event, Outcome)]
        var testDescription: String { name }
    }

    /// Runs the events of a script in turn on one machine, and says what it answered to each.
    struct Driver {
        var machine = Machine()
        var callers: [String: UInt64] = [:]
        var flights: [String: [UInt64]] = [:]

        func name(of caller: UInt64) -> String {
            callers.first { $0.value == caller }?.key ?? "?"
        }

        func flight(_ key: String, _ nth: Int) -> UInt64 {
            let all = flights[key] ?? []
            return nth == 0 ? all.last ?? 0 : all[nth - 1]
        }

        mutating func caller(_ name: String) -> UInt64 {
            if let number = callers[name] { return number }
            let number = machine.newCaller()
            callers[name] = number
            return number
        }

        mutating func run(_ event: Event) -> Outcome {
            switch event {
            case .arrive(let name, let key), .arriveCancelled(let name, let key):
                let caller = caller(name)
                var cancelled = false
                if case .arriveCancelled = event { cancelled = true }
                let (arrival, woke) = machine.arrive(caller, key: key, waiter: caller, isCancelled: cancelled)
                switch arrival {
                case .refuse: return .refuse
                case .lead(let flight):
                    flights[key, default: []].append(flight)
                    return .lead(woke: woke)
                case .join(let flight):
                    #expect(flight == self.flight(key, 0), "a caller joins the latest flight of its key")
                    return .join(woke: woke)
                }
            case .attach(let key, let nth):
                let call = "\(key)#\(nth == 0 ? flights[key]?.count ?? 0 : nth)"
                return machine.attach(call, to: flight(key, nth), key: key).map { .cancelAtOnce($0) } ?? .attached
            case .returns(let key, let nth):
                let deliveries = machine.callEnded(flight(key, nth), key: key)
                return .deliver(Dictionary(uniqueKeysWithValues: deliveries.map { (name(of: $0.waiter), $0.started) }))
            case .leave(let name, let key):
                switch machine.leave(caller(name), key: key) {
                case .none: return .nothing
                case .release(let waiter): return .release(self.name(of: waiter))
                case .releaseAndCancel(let waiter, let call):
                    return .releaseAndCancel(self.name(of: waiter), call: call)
                }
            case .watch(let count, let watcher):
                return machine.watch(until: count, watcher).map { .ready($0) } ?? .watching
            case .counts:
                return .counts(waiting: machine.waitingCallers, started: machine.callsStarted)
            }
        }
    }

    static let scripts: [Script] = [
        Script(
            name: "the first caller leads, identical ones join; all get the result, only the leader as its starter",
            steps: [
                (.arrive("a", key: "x"), .lead()),
                (.arrive("b", key: "x"), .join()),
                (.arrive("c", key: "x"), .join()),
                (.attach(key: "x"), .attached),
                (.counts, .counts(waiting: 3, started: 1)),
                (.returns(key: "x"), .deliver(["a": true, "b": false, "c": false])),
                (.counts, .counts(waiting: 0, started: 1)),
            ]),
        Script(
            name: "different keys are different calls",
            steps: [
                (.arrive("a", key: "x"), .lead()),
                (.arrive("b", key: "y"), .lead()),
                (.counts, .counts(waiting: 2, started: 2)),
                (.returns(key: "y"), .deliver(["b": true])),
                (.returns(key: "x"), .deliver(["a": true])),
            ]),
        Script(
            name: "once a call has returned its key is free: the next caller leads a new call",
            steps: [
                (.arrive("a", key: "x"), .lead()),
                (.returns(key: "x"), .deliver(["a": true])),
                (.arrive("b", key: "x"), .lead()),
                (.counts, .counts(waiting: 1, started: 2)),
            ]),
        Script(
            name: "a caller cancelled before it waits is refused: it neither leads nor joins",
            steps: [
                (.arriveCancelled("a", key: "x"), .refuse),
                (.counts, .counts(waiting: 0, started: 0)),
                (.arrive("b", key: "x"), .lead()),
                (.arriveCancelled("c", key: "x"), .refuse),
                (.returns(key: "x"), .deliver(["b": true])),
            ]),
        Script(
            name: "a follower that leaves is released; the call goes on for the others",
            steps: [
                (.arrive("a", key: "x"), .lead()),
                (.arrive("b", key: "x"), .join()),
                (.attach(key: "x"), .attached),
                (.leave("b", key: "x"), .release("b")),
                (.counts, .counts(waiting: 1, started: 1)),
                (.returns(key: "x"), .deliver(["a": true])),
            ]),
        Script(
            name: "the leader that leaves is released; the others still get the result, none as its starter",
            steps: [
                (.arrive("a", key: "x"), .lead()),
                (.arrive("b", key: "x"), .join()),
                (.arrive("c", key: "x"), .join()),
                (.attach(key: "x"), .attached),
                (.leave("a", key: "x"), .release("a")),
                (.returns(key: "x"), .deliver(["b": false, "c": false])),
            ]),
        Script(
            name: "the last caller to leave cancels the call; its late result goes to no one; the key is free",
            steps: [
                (.arrive("a", key: "x"), .lead()),
                (.arrive("b", key: "x"), .join()),
                (.attach(key: "x"), .attached),
                (.leave("a", key: "x"), .release("a")),
                (.leave("b", key: "x"), .releaseAndCancel("b", call: "x#1")),
                (.counts, .counts(waiting: 0, started: 1)),
                (.returns(key: "x"), .deliver([:])),
                (.arrive("c", key: "x"), .lead()),
                (.counts, .counts(waiting: 1, started: 2)),
            ]),
        Script(
            name: "a failed call is delivered like any result: to every caller waiting, and the key is free",
            steps: [
                (.arrive("a", key: "x"), .lead()),
                (.arrive("b", key: "x"), .join()),
                (.returns(key: "x"), .deliver(["a": true, "b": false])),
                (.leave("b", key: "x"), .nothing),
                (.arrive("c", key: "x"), .lead()),
            ]),
        Script(
            name: "leaving after the result, twice, or without having arrived changes nothing",
            steps: [
                (.arrive("a", key: "x"), .lead()),
                (.arrive("b", key: "x"), .join()),
                (.leave("b", key: "x"), .release("b")),
                (.leave("b", key: "x"), .nothing),
                (.leave("z", key: "x"), .nothing),
                (.leave("a", key: "y"), .nothing),
                (.returns(key: "x"), .deliver(["a": true])),
                (.leave("a", key: "x"), .nothing),
            ]),
        Script(
            name: "every caller left before the call's handle came: the handle is cancelled as it is attached",
            steps: [
                (.arrive("a", key: "x"), .lead()),
                (.leave("a", key: "x"), .releaseAndCancel("a", call: nil)),
                (.attach(key: "x"), .cancelAtOnce("x#1")),
            ]),
        Script(
            name: "an abandoned flight's late result and handle never touch the newer flight of the same key",
            steps: [
                (.arrive("a", key: "x"), .lead()),
                (.attach(key: "x"), .attached),
                (.leave("a", key: "x"), .releaseAndCancel("a", call: "x#1")),
                (.arrive("b", key: "x"), .lead()),
                (.attach(key: "x", nth: 1), .cancelAtOnce("x#1")),
                (.returns(key: "x", nth: 1), .deliver([:])),
                (.arrive("c", key: "x"), .join()),
                (.attach(key: "x"), .attached),
                (.returns(key: "x", nth: 2), .deliver(["b": true, "c": false])),
            ]),
        Script(
            name: "a watcher is let go once enough callers wait at once, at once when they already do",
            steps: [
                (.watch(2, "w"), .watching),
                (.watch(3, "v"), .watching),
                (.arriveCancelled("z", key: "x"), .refuse),
                (.arrive("a", key: "x"), .lead()),
                (.arrive("b", key: "y"), .lead(woke: ["w"])),
                (.watch(2, "u"), .ready("u")),
                (.leave("b", key: "y"), .releaseAndCancel("b", call: nil)),
                (.arrive("c", key: "x"), .join()),
                (.arrive("d", key: "x"), .join(woke: ["v"])),
            ]),
    ]

    @Test("each script's events get the answers written beside them", arguments: scripts)
    func script(_ script: Script) {
        var driver = Driver()
        for (index, (event, expected)) in script.steps.enumerated() {
            #expect(driver.run(event) == expected, "step \(index + 1): \(event)")
        }
    }
}
