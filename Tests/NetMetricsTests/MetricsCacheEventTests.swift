#if Metrics
import CoreMetrics
import Foundation
import MetricsTestKit
import NetCore
import NetKitTesting
import NetMetrics
import Testing

@Suite("MetricsPlugin: the response cache's events")
struct MetricsCacheEventTests {
    let metrics = TestMetrics()
    let get = [("method", "GET"), ("host", "api.test")]
    static let label = "netkit_http_client_cache_events_total"

    func executor(_ stub: StubTransport) -> RequestExecutor {
        var executor = RequestExecutor(transport: stub, plugins: [MetricsPlugin(factory: metrics)])
        executor.responseCache = ResponseCache(maximumBytes: 1 << 20)
        return executor
    }

    /// The count of `event` (with `reason`, when given) for `dimensions`, after method and host.
    func count(_ event: String, reason: String? = nil, _ dimensions: [(String, String)]? = nil) throws -> Int64 {
        let reasonDimension = reason.map { [("reason", $0)] } ?? []
        return try metrics.expectCounter(Self.label, (dimensions ?? get) + [("event", event)] + reasonDimension)
            .totalValue
    }

    /// Every dimension set the cache-events counter was made with.
    var cacheDimensions: [[String]] {
        metrics.counters.filter { $0.label == Self.label }.map { $0.dimensions.map { "\($0.0)=\($0.1)" } }
    }

    @Test("a miss that is stored, then a hit: one count each, with no reason dimension")
    func missStoredHit() async throws {
        let stub = StubTransport { _, _ in .json("{}", headers: ["Cache-Control": "max-age=60"]) }
        let executor = executor(stub)
        _ = try await executor.send(Search(), baseURL: base)
        _ = try await executor.send(Search(), baseURL: base)
        #expect(try count("miss") == 1)
        #expect(try count("stored") == 1)
        #expect(try count("hit") == 1)
        #expect(stub.requestCount == 1)
        #expect(cacheDimensions.allSatisfy { !$0.contains { $0.hasPrefix("reason=") } }, "\(cacheDimensions)")
    }

    @Test("not stored and served stale carry their reason as a fixed word")
    func reasons() async throws {
        let stub = StubTransport(replies: [
            .json("{}", headers: ["Cache-Control": "no-store"]),
            .json("{}", headers: ["Cache-Control": "max-age=0, stale-if-error=600"]),
            .status(503),
        ])
        let executor = executor(stub)
        _ = try await executor.send(Search(), baseURL: base)
        _ = try await executor.send(Search(), baseURL: base)
        _ = try await executor.send(Search(), baseURL: base)
        #expect(try count("not_stored", reason: "no_store") == 1)
        #expect(try count("stale", reason: "error_status") == 1)
        #expect(try count("not_stored", reason: "needs_freshness") == 1, "the 503 itself was not stored")
        #expect(try count("miss") == 2)
        #expect(try count("stored") == 1)
    }

    @Test("a POST's invalidation is counted under its method; only-if-cached with nothing stored is unavailable")
    func invalidatedAndUnavailable() async throws {
        let executor = executor(StubTransport(replies: [.status(204)]))
        _ = try await executor.send(Upload(), baseURL: base)
        #expect(try count("invalidated", [("method", "POST"), ("host", "api.test")]) == 1)
        struct OnlyIfCached: Endpoint {
            typealias Response = EmptyResponse
            var path: String { "/search" }
            var method: HTTPMethod { .get }
            var headers: [String: String]? { ["Cache-Control": "only-if-cached"] }
        }
        await #expect(throws: HTTPError.self) { try await executor.send(OnlyIfCached(), baseURL: base) }
        #expect(try count("unavailable") == 1)
    }

    @Test("no dimension holds the path or a query value; without a cache the counter is never made")
    func dimensions() async throws {
        let stub = StubTransport { _, _ in .json("{}", headers: ["Cache-Control": "max-age=60"]) }
        _ = try await executor(stub).send(Search(), baseURL: base)
        #expect(!cacheDimensions.isEmpty)
        #expect(
            cacheDimensions.allSatisfy { $0.allSatisfy { !$0.contains("SECRET") && !$0.contains("/search") } },
            "\(cacheDimensions)")

        let uncached = TestMetrics()
        let plain = RequestExecutor(transport: stub, plugins: [MetricsPlugin(factory: uncached)])
        _ = try await plain.send(Search(), baseURL: base)
        #expect(!uncached.counters.isEmpty, "the plugin counted the request")
        #expect(!uncached.counters.contains { $0.label == Self.label })
    }
}
#endif
