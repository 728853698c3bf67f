import Testing

@testable import NetCore

@Suite("Transport error kinds from their names")
struct TransportErrorKindNameTests {
    @Test("each kind is rebuilt from its name, with its transience; an unknown name is nil")
    func roundTrip() {
        #expect(TransportError.Kind.allKinds.count == 12)
        for kind in TransportError.Kind.allKinds {
            let rebuilt = TransportError.Kind(named: kind.description)
            #expect(rebuilt == kind && rebuilt?.isTransient == kind.isTransient, "\(kind)")
        }
        #expect(TransportError.Kind(named: "timedOut") == .timedOut)
        #expect(TransportError.Kind(named: "TimedOut") == nil)
        #expect(TransportError.Kind(named: "") == nil)
    }
}
