import Testing
import TodosServer

@Suite("Server support", .timeLimit(.minutes(1)))
struct ServerSupportTests {
    @Test("FNV-1a matches the published 64-bit test vectors")
    func fnv1aVectors() {
        #expect(FNV1a.hex(of: "".utf8) == "cbf29ce484222325")
        #expect(FNV1a.hex(of: "a".utf8) == "af63dc4c8601ec8c")
        #expect(FNV1a.hex(of: "foobar".utf8) == "85944171f73967e8")
    }

    @Test("a gate that stays closed ends the wait at its limit; an open one lets every waiter through at once")
    func gateLimitAndOpening() async {
        let gate = EventGate()
        #expect(await gate.wait(atMost: .milliseconds(20)) == false)
        #expect(gate.isOpen == false)

        async let waiter = gate.wait(atMost: .seconds(30))
        gate.open()
        #expect(await waiter)
        #expect(await gate.wait(atMost: .seconds(30)))
        #expect(gate.isOpen)
    }

    @Test("a waiter that is cancelled stops waiting and reports the gate as not opened")
    func gateWaitIsCancellable() async {
        let gate = EventGate()
        let waiter = Task { await gate.wait(atMost: .seconds(30)) }
        waiter.cancel()
        #expect(await waiter.value == false)
        #expect(gate.isOpen == false)
    }
}
