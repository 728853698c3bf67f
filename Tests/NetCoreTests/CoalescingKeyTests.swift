import Foundation
import Testing
import NetCore

/// What makes two requests identical for coalescing, without I/O: correlation fields aside, every header field, and
/// whose the request is.
@Suite("Coalescing keys")
struct CoalescingKeyTests {
    static func request(_ pairs: [(String, String)], method: HTTPRequestMethod = .get) throws -> TransportRequest {
        TransportRequest(
            head: try HTTPRequestHead(
                method: method, url: URL(string: "https://api.test/v1/items")!,
                headerFields: HTTPHeaderFields(pairs.map { (name: $0.0, value: $0.1) })))
    }

    static func key(_ request: TransportRequest, transport: TransportIdentity = fixtureTransport) -> CoalescingKey? {
        CoalescingKey(request) { .of(request.head, credentialFields: request.credentialFields, transport: transport) }
    }

    @Test("W3C and B3 trace context and X-Request-ID are left out; other fields count")
    func standardCorrelationFields() throws {
        let plain = Self.key(try Self.request([("Accept", "a")]))
        let traced = Self.key(
            try Self.request([
                ("traceparent", "00-1-2-01"), ("Accept", "a"), ("TraceState", "x=1"), ("baggage", "k=v"),
                ("X-B3-TraceId", "1"), ("X-B3-SpanId", "2"), ("X-B3-ParentSpanId", "3"), ("X-B3-Sampled", "1"),
                ("X-B3-Flags", "0"), ("b3", "1-2"), ("X-Request-ID", "r1"),
            ]))
        #expect(plain != nil && plain == traced)
        #expect(traced?.headerFields.map(\.name) == ["Accept"])
        #expect(plain != Self.key(try Self.request([("Accept", "b")])))
    }

    @Test("a marked header is left out, unless it carries a credential")
    func markedFields() throws {
        var first = try Self.request([("X-Correlation", "1")])
        var second = try Self.request([("X-Correlation", "2")])
        #expect(Self.key(first) != Self.key(second), "unmarked, it counts")
        first.markCorrelationHeader("x-correlation")
        second.markCorrelationHeader("X-CORRELATION")
        #expect(Self.key(first) == Self.key(second))
        var ann = try Self.request([("X-Session-Token", "ann")])
        var bob = try Self.request([("X-Session-Token", "bob")])
        ann.markCorrelationHeader("X-Session-Token")
        bob.markCorrelationHeader("X-Session-Token")
        #expect(Self.key(ann) != Self.key(bob), "a secret-looking name is a credential")
        var declared = try Self.request([("X-Request-ID", "ann")])
        declared.credentialFields.formUnion(.header("X-Request-ID"))
        var other = try Self.request([("X-Request-ID", "bob")])
        other.credentialFields.formUnion(.header("X-Request-ID"))
        #expect(Self.key(declared) != Self.key(other), "a declared credential is never a correlation field")
    }

    @Test("the transport counts; only GET and HEAD without a body have a key, and only they work out a partition")
    func partitionAndMethods() throws {
        let request = try Self.request([])
        #expect(Self.key(request) != Self.key(request, transport: TransportIdentity(IdentityOnlyTransport())))
        var asked = false
        let post = CoalescingKey(try Self.request([], method: .post)) {
            asked = true
            return .of(request.head)
        }
        #expect(post == nil && !asked)
        #expect(Self.key(try Self.request([], method: .head)) != nil)
    }
}
