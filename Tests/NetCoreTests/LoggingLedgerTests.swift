import NetCore
import Testing

@Suite("RequestLedger")
struct LoggingLedgerTests {
    @Test("an entry opened in prepare is found by its request number and closed once")
    func openClose() {
        let ledger = RequestLedger<String>()
        ledger.open(1, "one")
        ledger.open(2, "two")
        #expect(ledger.update(1) { entry in entry += "!" } != nil)
        #expect(ledger.update(3) { _ in } == nil)
        #expect(ledger.entry(1) == "one!")
        #expect(ledger.close(1) == "one!")
        #expect(ledger.close(1) == nil)
        #expect(ledger.count == 1)
        #expect(ledger.close(2) == "two")
        #expect(ledger.count == 0)
    }
}
