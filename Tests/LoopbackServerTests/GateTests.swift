import Foundation
import LoopbackServer
import Testing

@Suite("Gates")
struct GateTests {
    @Test func waitReturnsAtOnceWhenAlreadyOpen() throws {
        let gate = try LoopbackGate()
        gate.open()
        gate.open()

        #expect(gate.isOpen)
        #expect(gate.wait(timeout: .seconds(10)))
    }

    @Test func waitTimesOutOnAClosedGate() throws {
        let gate = try LoopbackGate()

        let elapsed = measure { #expect(!gate.wait(timeout: .milliseconds(50))) }

        #expect(!gate.isOpen)
        #expect(elapsed >= .milliseconds(50))
    }

    @Test func openingFromAsyncCodeReleasesAWaitingThread() async throws {
        let gate = try LoopbackGate()
        let opened = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread { continuation.resume(returning: gate.wait(timeout: .seconds(60))) }.start()
            gate.open()
        }

        // `wait` returns true only when the gate opened, false when its timeout ran out.
        #expect(opened)
    }
}
