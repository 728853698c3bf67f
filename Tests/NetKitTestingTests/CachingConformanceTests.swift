import Foundation
import NetCore
import NetKitTesting
import NetTransport
import Testing

/// The caching checks of the conformance suite fail, each with its RFC section first, against a transport that
/// loses the response field its rule depends on.
@Suite("Transport conformance suite: the caching checks")
struct CachingConformanceTests {
    /// URLSession's transport, but every response loses the fields named `field`.
    struct FieldDroppingTransport: HTTPTransport {
        let base = URLSessionTransport()
        let field: String

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            var response = try await base.send(request)
            response.head.headerFields.removeValues(for: field)
            return response
        }
    }

    @Test(
        "each caching check fails, naming its section, when the transport drops the field its rule reads",
        arguments: [
            ("cache: RFC 9111 §5.3 strict Expires", "Expires", "RFC 9111 §5.3"),
            ("cache: RFC 9111 §5.1 Age", "Age", "RFC 9111 §5.1"),
            ("cache: RFC 9111 §3 and §4.2.1 a fresh 301, 404 or 410", "Cache-Control", "RFC 9111 §3, §4.2.1"),
            ("cache: RFC 9111 §4.2.2 heuristic freshness", "Last-Modified", "RFC 9111 §4.2.2"),
            ("cache: RFC 9111 §4.3.4 a 304 updates the stored fields", "ETag", "RFC 9111 §4.3.4"),
            ("cache: RFC 9111 §4.1 Vary normalised", "Vary", "RFC 9111 §4.1"),
            ("cache: RFC 9111 §4.4 invalidation", "Location", "RFC 9111 §4.4"),
            ("cache: RFC 8246 immutable", "Cache-Control", "RFC 8246 §2"),
            ("cache: RFC 9111 §5.2.2.3 must-understand", "Cache-Control", "RFC 9111 §5.2.2.3"),
            ("cache: RFC 5861 §4 stale-if-error", "Cache-Control", "RFC 5861 §4"),
        ])
    func failsWithoutItsField(_ name: String, _ field: String, _ section: String) async throws {
        let check = try #require(TransportConformance.checks.first { $0.name == name }, "no check named \(name)")
        let failure = await #expect(throws: TransportConformanceFailure.self, "\(name) passed without \(field)") {
            try await check.run(
                against: FieldDroppingTransport(field: field),
                options: TransportConformanceOptions(timeLimit: .seconds(60)))
        }
        #expect(failure?.check == name)
        #expect(failure?.message.hasPrefix(section + ":") == true, "\(failure?.message ?? "no failure")")
    }

    @Test("eleven caching checks, each named after its RFC section")
    func names() {
        let caching = TransportConformance.checks.filter { $0.name.hasPrefix("cache: ") }
        #expect(caching.count == 11)
        #expect(caching.allSatisfy { $0.name.hasPrefix("cache: RFC ") })
    }
}
