import NetCore
import Testing

@Suite("RequestLedger")
struct LoggingLedgerTests {
    @Test("an entry opened in prepare is found by its start instant and closed once")
    func openClose() {
        let ledger = RequestLedger<String>()
        let start = ContinuousClock.now
        ledger.open(1, startedAt: start, "one")
        #expect(ledger.update(1) { entry in entry += "!" } != nil)
        #expect(ledger.update(2) { _ in } == nil)
        #expect(ledger.entry(startedAt: start) == "one!")
        #expect(ledger.close(startedAt: start) == "one!")
        #expect(ledger.close(startedAt: start) == nil)
        #expect(ledger.count == 0)
    }

    @Test("two requests started in the same instant are told apart by the matcher, else the older goes first")
    func sameInstant() {
        let ledger = RequestLedger<String>()
        let start = ContinuousClock.now
        ledger.open(1, startedAt: start, "a")
        ledger.open(2, startedAt: start, "b")
        ledger.open(3, startedAt: start + .nanoseconds(1), "c")
        #expect(ledger.count == 3)
        #expect(ledger.close(startedAt: start) { $0 == "b" } == "b")
        #expect(ledger.close(startedAt: start) { $0 == "z" } == "a")
        #expect(ledger.close(startedAt: start) == nil)
        #expect(ledger.close(startedAt: start + .nanoseconds(1)) == "c")
        #expect(ledger.count == 0)
    }
}
