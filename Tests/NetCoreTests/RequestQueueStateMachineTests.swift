import Testing

@testable import NetCore

/// RequestQueue's decisions as plain values, without a task, a continuation, a clock or a lock: who takes a slot,
/// who waits and in what order, who a slot given back goes to, what a waiter leaving changes, when an origin is
/// forgotten.
@Suite("RequestQueue state machine")
struct RequestQueueStateMachineTests {
    typealias Machine = RequestQueue.StateMachine

    /// Origins by a short name: `a` is `https://a.test`.
    static func origin(_ name: String) -> HTTPOrigin { HTTPOrigin(scheme: "https", host: "\(name).test", port: nil) }

    /// What a script does to the machine; requests are named by strings, origins by ``origin(_:)``'s short names.
    enum Event: Sendable {
        /// A request asks for a slot of `origin` (with a waiter number, so it may wait).
        case acquire(String, origin: String)
        /// A request asks for a slot only if one is free (the way in without a waiter).
        case acquireIfFree(origin: String)
        /// A request holding a slot of `origin` gives it back.
        case release(origin: String)
        /// A waiter stops waiting (cancelled, timed out).
        case leave(String, origin: String)
        /// Nothing happens: the counts of `origin` are read.
        case counts(origin: String)
        /// Nothing happens: the number of origins remembered is read.
        case origins
    }

    /// What the machine said, with waiters by name.
    enum Outcome: Equatable, Sendable {
        case proceed
        case wait
        case taken
        case busy
        /// The slot went to this waiter, who is to be resumed.
        case resume(String)
        /// Nobody waited: the slot is free.
        case freed
        /// The waiter was in the line and is out of it.
        case removed
        /// The waiter was not in the line: nothing changed.
        case nothing
        case counts(held: Int, waiting: [String])
        case origins(Int)
    }

    struct Script: Sendable, CustomTestStringConvertible {
        let name: String
        var limit = 2
        let steps: [(Event, Outcome)]
        var testDescription: String { name }
    }

    /// Runs the events of a script in turn on one machine, and says what it answered to each.
    struct Driver {
        var machine: Machine
        var waiters: [String: UInt64] = [:]

        init(limit: Int) { machine = Machine(limit: limit) }

        func name(of waiter: UInt64) -> String { waiters.first { $0.value == waiter }?.key ?? "?" }

        mutating func waiter(_ name: String) -> UInt64 {
            if let number = waiters[name] { return number }
            let number = machine.newWaiter()
            waiters[name] = number
            return number
        }

        mutating func run(_ event: Event) -> Outcome {
            switch event {
            case .acquire(let name, let origin):
                let waiter = waiter(name)
                return machine.acquire(RequestQueueStateMachineTests.origin(origin), waiter: waiter) == .proceed
                    ? .proceed : .wait
            case .acquireIfFree(let origin):
                return machine.acquireIfFree(RequestQueueStateMachineTests.origin(origin)) ? .taken : .busy
            case .release(let origin):
                return machine.release(RequestQueueStateMachineTests.origin(origin)).map { .resume(name(of: $0)) }
                    ?? .freed
            case .leave(let name, let origin):
                return machine.leave(waiter(name), origin: RequestQueueStateMachineTests.origin(origin))
                    ? .removed : .nothing
            case .counts(let origin):
                let origin = RequestQueueStateMachineTests.origin(origin)
                return .counts(held: machine.held(origin), waiting: machine.waiters(origin).map { name(of: $0) })
            case .origins:
                return .origins(machine.originCount)
            }
        }
    }

    static let scripts: [Script] = [
        Script(
            name: "up to the limit proceed; the others wait, and are handed the slots given back in arrival order",
            steps: [
                (.acquire("a", origin: "x"), .proceed),
                (.acquire("b", origin: "x"), .proceed),
                (.acquire("c", origin: "x"), .wait),
                (.acquire("d", origin: "x"), .wait),
                (.acquire("e", origin: "x"), .wait),
                (.counts(origin: "x"), .counts(held: 2, waiting: ["c", "d", "e"])),
                (.release(origin: "x"), .resume("c")),
                (.counts(origin: "x"), .counts(held: 2, waiting: ["d", "e"])),
                (.release(origin: "x"), .resume("d")),
                (.release(origin: "x"), .resume("e")),
                (.counts(origin: "x"), .counts(held: 2, waiting: [])),
            ]),
        Script(
            name: "a slot handed to a waiter is never taken by a request that came later",
            limit: 1,
            steps: [
                (.acquire("a", origin: "x"), .proceed),
                (.acquire("b", origin: "x"), .wait),
                (.release(origin: "x"), .resume("b")),
                (.acquireIfFree(origin: "x"), .busy),
                (.acquire("c", origin: "x"), .wait),
                (.counts(origin: "x"), .counts(held: 1, waiting: ["c"])),
            ]),
        Script(
            name: "the limit is never exceeded: the way in without a waiter is refused while every slot is held",
            steps: [
                (.acquireIfFree(origin: "x"), .taken),
                (.acquireIfFree(origin: "x"), .taken),
                (.acquireIfFree(origin: "x"), .busy),
                (.acquire("a", origin: "x"), .wait),
                (.acquireIfFree(origin: "x"), .busy),
                (.counts(origin: "x"), .counts(held: 2, waiting: ["a"])),
            ]),
        Script(
            name: "a waiter that leaves is neither resumed nor handed a slot; the slots held stay as they were",
            limit: 1,
            steps: [
                (.acquire("a", origin: "x"), .proceed),
                (.acquire("b", origin: "x"), .wait),
                (.acquire("c", origin: "x"), .wait),
                (.acquire("d", origin: "x"), .wait),
                (.leave("c", origin: "x"), .removed),
                (.counts(origin: "x"), .counts(held: 1, waiting: ["b", "d"])),
                (.release(origin: "x"), .resume("b")),
                (.leave("d", origin: "x"), .removed),
                (.counts(origin: "x"), .counts(held: 1, waiting: [])),
                (.release(origin: "x"), .freed),
                (.counts(origin: "x"), .counts(held: 0, waiting: [])),
            ]),
        Script(
            name: "leaving once handed a slot, twice, or without having waited changes nothing",
            limit: 1,
            steps: [
                (.acquire("a", origin: "x"), .proceed),
                (.leave("a", origin: "x"), .nothing),
                (.acquire("b", origin: "x"), .wait),
                (.release(origin: "x"), .resume("b")),
                (.leave("b", origin: "x"), .nothing),
                (.acquire("c", origin: "x"), .wait),
                (.leave("c", origin: "x"), .removed),
                (.leave("c", origin: "x"), .nothing),
                (.leave("z", origin: "x"), .nothing),
                (.leave("z", origin: "y"), .nothing),
                (.counts(origin: "x"), .counts(held: 1, waiting: [])),
            ]),
        Script(
            name: "a release with nobody waiting frees the slot for the next; one with nothing held does nothing",
            steps: [
                (.acquire("a", origin: "x"), .proceed),
                (.acquire("b", origin: "x"), .proceed),
                (.release(origin: "x"), .freed),
                (.counts(origin: "x"), .counts(held: 1, waiting: [])),
                (.acquire("c", origin: "x"), .proceed),
                (.acquire("d", origin: "x"), .wait),
                (.release(origin: "y"), .freed),
                (.counts(origin: "x"), .counts(held: 2, waiting: ["d"])),
                (.origins, .origins(1)),
            ]),
        Script(
            name: "origins are independent: one's slots and line never touch another's",
            limit: 1,
            steps: [
                (.acquire("a", origin: "x"), .proceed),
                (.acquire("b", origin: "x"), .wait),
                (.acquire("c", origin: "y"), .proceed),
                (.acquire("d", origin: "y"), .wait),
                (.release(origin: "y"), .resume("d")),
                (.counts(origin: "x"), .counts(held: 1, waiting: ["b"])),
                (.release(origin: "y"), .freed),
                (.counts(origin: "y"), .counts(held: 0, waiting: [])),
                (.release(origin: "x"), .resume("b")),
            ]),
        Script(
            name: "an origin with nothing held and nobody waiting is forgotten: the map empties",
            limit: 1,
            steps: [
                (.origins, .origins(0)),
                (.acquire("a", origin: "x"), .proceed),
                (.acquire("b", origin: "y"), .proceed),
                (.acquire("c", origin: "y"), .wait),
                (.origins, .origins(2)),
                (.release(origin: "x"), .freed),
                (.origins, .origins(1)),
                (.leave("c", origin: "y"), .removed),
                (.origins, .origins(1)),
                (.release(origin: "y"), .freed),
                (.origins, .origins(0)),
                (.acquireIfFree(origin: "z"), .taken),
                (.release(origin: "z"), .freed),
                (.origins, .origins(0)),
            ]),
        Script(
            name: "a limit below 1 counts as 1",
            limit: 0,
            steps: [
                (.acquire("a", origin: "x"), .proceed),
                (.acquire("b", origin: "x"), .wait),
                (.release(origin: "x"), .resume("b")),
            ]),
    ]

    @Test("each script's events get the answers written beside them", arguments: scripts)
    func script(_ script: Script) {
        var driver = Driver(limit: script.limit)
        for (index, (event, expected)) in script.steps.enumerated() {
            #expect(driver.run(event) == expected, "step \(index + 1): \(event)")
        }
    }

    @Test("a long run of arrivals, releases and departures agrees with a plain model, then empties to nothing")
    func agreesWithModel() {
        let origins = [Self.origin("x"), Self.origin("y")]
        var machine = Machine(limit: 3)
        // The model: per origin, the slots held and the line, as plainly as it can be written.
        var held: [HTTPOrigin: Int] = [:]
        var lines: [HTTPOrigin: [UInt64]] = [:]
        // A fixed sequence (a linear congruential generator): the same run every time.
        var seed: UInt64 = 42
        var longest = 0
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for step in 0..<5_000 {
            let origin = origins[next(origins.count)]
            // Arrivals outnumber departures in the first half, so that lines grow long, and the reverse after.
            let arrivals = step < 2_500 ? 12 : 8
            let roll = next(20)
            if roll < arrivals {
                let waiter = machine.newWaiter()
                let expected: Machine.Acquisition = held[origin, default: 0] < 3 ? .proceed : .wait
                let acquisition = machine.acquire(origin, waiter: waiter)
                #expect(acquisition == expected, "step \(step)")
                if expected == .proceed {
                    held[origin, default: 0] += 1
                } else {
                    lines[origin, default: []].append(waiter)
                }
            } else if roll < arrivals + 7 {
                var expected: UInt64?
                if !(lines[origin]?.isEmpty ?? true) {
                    expected = lines[origin]?.removeFirst()
                } else if held[origin, default: 0] > 0 {
                    held[origin, default: 0] -= 1
                }
                let resumed = machine.release(origin)
                #expect(resumed == expected, "step \(step)")
            } else if let line = lines[origin], !line.isEmpty {
                let leaving = line[next(line.count)]
                lines[origin]?.removeAll { $0 == leaving }
                let left = machine.leave(leaving, origin: origin)
                let leftAgain = machine.leave(leaving, origin: origin)
                #expect(left, "step \(step)")
                #expect(!leftAgain, "step \(step): a second leave changes nothing")
            }
            longest = max(longest, machine.waiterCount)
            for origin in origins {
                #expect(machine.held(origin) == held[origin, default: 0], "step \(step)")
                #expect(machine.held(origin) <= 3, "step \(step)")
                #expect(machine.waiters(origin) == lines[origin, default: []], "step \(step)")
            }
        }
        #expect(longest > 64, "the run made lines long enough to be compacted")
        for origin in origins {
            while machine.held(origin) > 0 { _ = machine.release(origin) }
        }
        #expect(machine.waiterCount == 0)
        #expect(machine.originCount == 0)
    }
}
