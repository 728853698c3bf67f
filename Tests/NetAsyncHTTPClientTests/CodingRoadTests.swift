#if AsyncHTTPClient
@testable import NetAsyncHTTPClient
import NetCore
import Testing

/// What AsyncHTTPClientTransport does with NetKit's coding plan, given what SwiftNIO decoded. Pure: no I/O.
@Suite("AsyncHTTPClient transport: the coding road")
struct CodingRoadTests {
    @Test("a client that decompresses: NetKit decodes what SwiftNIO leaves")
    func decompressing() {
        // SwiftNIO decodes one coding when the field's first is gzip or deflate.
        #expect(CodingRoad(plan: .decode([.gzip]), firstCoding: "gzip", clientDecodes: true) == .asItComes)
        #expect(
            CodingRoad(plan: .decode([.gzip, .gzip]), firstCoding: "gzip", clientDecodes: true) == .decode(layers: 1))
        #expect(CodingRoad(plan: .decode([.gzip]), firstCoding: "identity", clientDecodes: true) == .decode(layers: 1))
        #expect(CodingRoad(plan: .decode([.gzip]), firstCoding: "x-gzip", clientDecodes: true) == .decode(layers: 1))
        #expect(
            CodingRoad(plan: .decode([.gzip, .deflate]), firstCoding: "DEFLATE", clientDecodes: true)
                == .decode(layers: 1))
        #expect(CodingRoad(plan: .refuse("br"), firstCoding: "br", clientDecodes: true) == .refuse("br"))
        #expect(CodingRoad(plan: .identity, firstCoding: nil, clientDecodes: true) == .asItComes)
    }

    @Test("a client that does not decompress: every body as it was sent")
    func notDecompressing() {
        #expect(CodingRoad(plan: .decode([.gzip, .gzip]), firstCoding: "gzip", clientDecodes: false) == .asItComes)
        #expect(CodingRoad(plan: .refuse("br"), firstCoding: "br", clientDecodes: false) == .asItComes)
    }

    @Test("a client passed in: only what it may have half-decoded is refused")
    func borrowed() {
        #expect(CodingRoad(plan: .decode([.gzip]), firstCoding: "gzip", clientDecodes: nil) == .asItComes)
        #expect(CodingRoad(plan: .refuse("br"), firstCoding: "br", clientDecodes: nil) == .asItComes)
        #expect(CodingRoad(plan: .decode([.gzip, .gzip]), firstCoding: "identity", clientDecodes: nil) == .asItComes)
        guard case .refuse = CodingRoad(plan: .decode([.gzip, .gzip]), firstCoding: "gzip", clientDecodes: nil) else {
            Issue.record("stacked codings a borrowed client may have half-decoded were not refused")
            return
        }
    }
}
#endif
