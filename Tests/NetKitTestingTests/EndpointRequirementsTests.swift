import Foundation
import NetCore
import NetKitTesting
import Testing

/// Near misses: properties named like a requirement, of another type, which Swift accepts and never reads.
@Suite("Endpoint requirements: near misses are found before production")
struct EndpointRequirementsTests {
    struct Order: Encodable, Sendable {
        let item: String
    }

    /// Both near misses stored: `RetryPolicy?` for `RetryPolicy`, an `Encodable` for `RequestBody?`.
    struct StoredNearMisses: Endpoint {
        typealias Response = EmptyResponse
        var path: String { "/orders" }
        var method: HTTPMethod { .post }
        var retryPolicy: RetryPolicy? = RetryPolicy(maxRetryCount: 3)
        let body: (any Encodable & Sendable)? = Order(item: "book")
    }

    /// The same near miss, computed: invisible to reflection, seen as the default in use.
    struct ComputedNearMiss: Endpoint {
        typealias Response = EmptyResponse
        var path: String { "/orders" }
        var method: HTTPMethod { .post }
        var retryPolicy: RetryPolicy? { RetryPolicy(maxRetryCount: 3) }
    }

    struct Exact: Endpoint {
        typealias Response = EmptyResponse
        var path: String { "/orders" }
        var method: HTTPMethod { .post }
        var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 3) }
        var body: RequestBody? { RequestBody(encodable: Order(item: "book")) }
    }

    @Test("stored near misses are named with the type found and the type required")
    func stored() throws {
        let report = EndpointRequirements(of: StoredNearMisses())
        #expect(report.nearMisses.map(\.name).sorted() == ["body", "retryPolicy"], "\(report)")
        let retry = try #require(report.nearMisses.first { $0.name == "retryPolicy" })
        #expect(retry.declaredType == "Optional<RetryPolicy>" && retry.requiredType == "RetryPolicy")
        let error = try #require(throws: EndpointRequirements.Unimplemented.self) {
            try report.expectOwn("body", "retryPolicy")
        }
        #expect(
            error.description.contains(
                "retryPolicy uses the protocol's default (the engine's default retry policy; without one, "
                    + "RetryPolicy(): no retries): declare it as `var retryPolicy: RetryPolicy`; the property found "
                    + "is Optional<RetryPolicy>"), "\(error)")
        #expect(error.description.contains("body uses the protocol's default (nil: no body)"), "\(error)")
    }

    @Test("a computed near miss shows as the default in use, which expectOwn reports")
    func computed() throws {
        let report = EndpointRequirements(of: ComputedNearMiss())
        #expect(report.nearMisses.isEmpty)
        #expect(report.defaultsInUse.contains("retryPolicy") && report.defaultsInUse.contains("body"))
        let error = try #require(throws: EndpointRequirements.Unimplemented.self) {
            try report.expectOwn("retryPolicy")
        }
        #expect(error.description.contains("a computed property of another type would look like this too"))
    }

    @Test("a request that implements its requirements passes; the defaults it keeps are listed")
    func exact() throws {
        let report = EndpointRequirements(of: Exact())
        try report.expectOwn("body", "retryPolicy")
        #expect(report.nearMisses.isEmpty)
        #expect(!report.defaultsInUse.contains("body") && !report.defaultsInUse.contains("retryPolicy"))
        #expect(report.defaultsInUse.contains("timeout") && report.defaultsInUse.contains("headers"))
    }
}
