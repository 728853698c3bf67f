#if Metrics
import CoreMetrics
import Foundation
import MetricsTestKit
import NetCore
import NetKitTesting
import NetMetrics
import Testing

@Suite("MetricsPlugin: each phase timed from the request's events")
struct MetricsPhaseTests {
    let metrics = TestMetrics()
    static let label = "netkit_http_client_phase_duration"

    func timed(_ phase: String) throws -> Int {
        try metrics.expectTimer(Self.label, [("method", "GET"), ("host", "api.test"), ("phase", phase)]).values.count
    }

    @Test("a retried request: two attempts, two heads and bodies, one retry wait, each timed once")
    func retried() async throws {
        let stub = StubTransport(replies: [.status(503), .json("{}")])
        let executor = RequestExecutor(transport: stub, plugins: [MetricsPlugin(factory: metrics)])
        _ = try await executor.send(Search(retries: 1), baseURL: base)
        #expect(try timed("attempt") == 2)
        #expect(try timed("time_to_head") == 2)
        #expect(try timed("body") == 2)
        #expect(try timed("retry_wait") == 1)
        #expect(metrics.timers.filter { $0.label == Self.label }.allSatisfy { $0.values.allSatisfy { $0 >= 0 } })
    }

    @Test("a request with a body: sending it is a phase of its own, from the head sent to its last byte")
    func upload() async throws {
        let stub = StubTransport(replies: [.json("{}")])
        let executor = RequestExecutor(transport: stub, plugins: [MetricsPlugin(factory: metrics)])
        _ = try await executor.send(Upload(), baseURL: base)
        let sending = try metrics.expectTimer(
            Self.label, [("method", "POST"), ("host", "api.test"), ("phase", "request_body")])
        #expect(sending.values.count == 1)
    }
}
#endif
