#if Metrics
import CoreMetrics
import Foundation
import MetricsTestKit
import NetCore
import NetKitTesting
import NetMetrics
import Testing

@Suite("MetricsPlugin through a RequestExecutor")
struct MetricsPluginTests {
    let metrics = TestMetrics()
    let get = [("method", "GET"), ("host", "api.test")]

    func executor(_ stub: StubTransport, _ extra: [any Plugin] = []) -> (RequestExecutor, MetricsPlugin) {
        let plugin = MetricsPlugin(factory: metrics)
        return (RequestExecutor(transport: stub, plugins: extra + [plugin]), plugin)
    }

    func ended(_ statusClass: String, _ dimensions: [(String, String)]? = nil) -> [(String, String)] {
        (dimensions ?? get) + [("status_class", statusClass)]
    }

    func total(_ name: String, _ dimensions: [(String, String)]) throws -> Int64 {
        try metrics.expectCounter("netkit_http_client_\(name)", dimensions).totalValue
    }

    /// The in-flight gauge went up once and is back at 0.
    func expectLanded(_ plugin: MetricsPlugin, _ dimensions: [(String, String)]? = nil) throws {
        let meter = try metrics.expectMeter("netkit_http_client_requests_in_flight", dimensions ?? get)
        #expect(meter.values == [1, 0])
        #expect(plugin.requestsInFlight == 0)
    }

    @Test("a success is counted and timed as 2xx, with its response bytes")
    func success() async throws {
        let (executor, plugin) = executor(StubTransport(replies: [.json(#"{"ok":true}"#)]))
        _ = try await executor.send(Search(), baseURL: base)
        #expect(try total("requests_total", ended("2xx")) == 1)
        #expect(try metrics.expectTimer("netkit_http_client_request_duration", ended("2xx")).values.count == 1)
        #expect(try total("response_body_bytes_total", get) == 11)
        #expect(try total("request_body_bytes_total", get) == 0)
        #expect(metrics.counters.filter { $0.label == "netkit_http_client_retries_total" }.isEmpty)
        try expectLanded(plugin)
    }

    @Test("the request body's bytes are counted")
    func requestBytes() async throws {
        let (executor, plugin) = executor(StubTransport(replies: [.status(204)]))
        _ = try await executor.send(Upload(), baseURL: base)
        let post = [("method", "POST"), ("host", "api.test")]
        #expect(try total("request_body_bytes_total", post) == 5)
        #expect(try total("requests_total", ended("2xx", post)) == 1)
        try expectLanded(plugin, post)
    }

    @Test("a 404 is counted as 4xx")
    func notFound() async throws {
        let (executor, plugin) = executor(StubTransport(replies: [.status(404)]))
        await #expect(throws: HTTPError.self) { try await executor.send(Search(), baseURL: base) }
        #expect(try total("requests_total", ended("4xx")) == 1)
        #expect(try metrics.expectTimer("netkit_http_client_request_duration", ended("4xx")).values.count == 1)
        try expectLanded(plugin)
    }

    @Test("a transport error is counted as error")
    func transportError() async throws {
        let (executor, plugin) = executor(StubTransport(replies: [.failure(.cannotConnect)]))
        await #expect(throws: TransportError.self) { try await executor.send(Search(), baseURL: base) }
        #expect(try total("requests_total", ended("error")) == 1)
        try expectLanded(plugin)
    }

    @Test("a retry is counted, and the request once, by its last status")
    func retry() async throws {
        let (executor, plugin) = executor(
            StubTransport(replies: [.status(503), .failure(.connectionLost), .status(200)]))
        _ = try await executor.send(Search(retries: 2), baseURL: base)
        #expect(try total("retries_total", get) == 2)
        #expect(try total("requests_total", ended("2xx")) == 1)
        #expect(metrics.counters(label: "netkit_http_client_requests_total").count == 1)
        try expectLanded(plugin)
    }

    @Test("a redirect hop is counted as a redirect, not a retry, and the request once")
    func redirect() async throws {
        let (executor, plugin) = executor(
            StubTransport(replies: [.status(302, headers: ["Location": "/elsewhere"]), .status(200)]))
        _ = try await executor.send(Search(), baseURL: base)
        #expect(try total("redirects_total", get) == 1)
        #expect(metrics.counters.filter { $0.label == "netkit_http_client_retries_total" }.isEmpty)
        #expect(try total("requests_total", ended("2xx")) == 1)
        try expectLanded(plugin)
    }

    @Test("a 401, a refresh and a resend count one refresh and one 2xx request")
    func refresh() async throws {
        let renewal = Renewal()
        let stub = StubTransport(replies: [.status(401), .status(200)])
        let (executor, plugin) = executor(stub)
        _ = try await executor.send(Search(), baseURL: base, accessToken: { renewal.token }, credentials: renewal)
        #expect(renewal.refreshes == 1)
        #expect(stub.requests.map { $0.value(forHeader: "Authorization") } == ["Bearer stale", "Bearer fresh"])
        #expect(try total("credential_refreshes_total", get) == 1)
        #expect(metrics.counters.filter { $0.label == "netkit_http_client_retries_total" }.isEmpty)
        #expect(try total("requests_total", ended("2xx")) == 1)
        try expectLanded(plugin)
    }

    @Test("a cancelled request is counted as cancelled and leaves flight; while held it is in flight")
    func cancellation() async throws {
        let gate = StubGate()
        let (executor, plugin) = executor(StubTransport(replies: [StubTransport.Reply.status(200).held(by: gate)]))
        let task = Task { try await executor.send(Search(), baseURL: base) }
        await gate.waitForArrivals(1)
        #expect(try metrics.expectMeter("netkit_http_client_requests_in_flight", get).lastValue == 1)
        #expect(plugin.requestsInFlight == 1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try total("requests_total", ended("cancelled")) == 1)
        try expectLanded(plugin)
    }

    @Test("a stream leaves flight when its head arrives")
    func stream() async throws {
        let (executor, plugin) = executor(StubTransport(replies: [.json(#"{"ok":true}"#)]))
        let (response, _) = try await executor.streamingResponse(for: Search(), baseURL: base)
        #expect(response.statusCode == 200)
        #expect(try total("requests_total", ended("2xx")) == 1)
        try expectLanded(plugin)
    }

    @Test("the operation becomes a dimension; no dimension holds a path or a query")
    func dimensions() async throws {
        let (executor, plugin) = executor(
            StubTransport(replies: [.status(503), .status(200)]), [NamesOperation(operationID: "searchItems")])
        _ = try await executor.send(Search(retries: 1), baseURL: base)
        let named = get + [("operation", "searchItems")]
        #expect(try total("requests_total", ended("2xx", named)) == 1)
        #expect(try total("retries_total", named) == 1)
        try expectLanded(plugin, named)
        let values =
            metrics.counters.flatMap(\.dimensions) + metrics.timers.flatMap(\.dimensions)
            + metrics.meters.flatMap(\.dimensions)
        #expect(!values.isEmpty)
        for (name, value) in values {
            #expect(["method", "host", "status_class", "operation", "phase"].contains(name))
            #expect(!value.contains("/") && !value.contains("?") && !value.contains("SECRET"), "\(value)")
        }
    }

    @Test("a 200 whose body fails to decode is 2xx: the class is the response's")
    func undecodable() async throws {
        struct Item: Endpoint {
            struct Response: Decodable { let id: Int }
            var path: String { "/items/1" }
            var method: HTTPMethod { .get }
        }
        let (executor, plugin) = executor(StubTransport(replies: [.json("<html>")]))
        await #expect(throws: DecodingError.self) { try await executor.send(Item(), baseURL: base) }
        #expect(try total("requests_total", ended("2xx")) == 1)
        try expectLanded(plugin)
    }

    @Test("an attempt a plugin asks for is a retry")
    func pluginRetry() async throws {
        /// Asks for one more attempt after the first response.
        struct AgainOnce: Plugin {
            func verify(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext)
                async throws -> PluginVerdict
            { context.attempt == 1 ? .retry : .accept }
        }
        let (executor, plugin) = executor(StubTransport(replies: [.status(200), .status(200)]), [AgainOnce()])
        _ = try await executor.send(Search(), baseURL: base)
        #expect(try total("retries_total", get) == 1)
        #expect(try total("requests_total", ended("2xx")) == 1)
        try expectLanded(plugin)
    }

    @Test("the prefix begins every name")
    func prefix() async throws {
        let plugin = MetricsPlugin(factory: metrics, prefix: "shop")
        let executor = RequestExecutor(transport: StubTransport(replies: [.status(200)]), plugins: [plugin])
        _ = try await executor.send(Search(), baseURL: base)
        #expect(try metrics.expectCounter("shop_http_client_requests_total", ended("2xx")).totalValue == 1)
        #expect(metrics.counters.allSatisfy { $0.label.hasPrefix("shop_http_client_") })
    }
}
#endif
