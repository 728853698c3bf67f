#if Tracing
import Foundation
import InMemoryTracing
import NetCore
import NetKitTesting
import NetTracing
import Testing
import Tracing

@Suite("TracingPlugin: a span event per phase of the request")
struct TracingPhaseEventTests {
    let tracer = W3CTracer()

    @Test("a retried request: the request span holds every phase after call_start, in order, with its numbers")
    func phases() async throws {
        let stub = StubTransport(replies: [.status(503), .json("{}")])
        let executor = RequestExecutor(transport: stub, plugins: [TracingPlugin(tracer: tracer)])
        _ = try await executor.send(Search(retries: 1), baseURL: base)
        let request = try #require(tracer.spans.request)
        #expect(
            request.events.map(\.name) == [
                "netkit.attempt_start", "netkit.request_start", "netkit.request_head_sent", "netkit.response_head",
                "netkit.response_body_end", "netkit.attempt_end", "netkit.retry_scheduled", "netkit.attempt_start",
                "netkit.request_start", "netkit.request_head_sent", "netkit.response_head",
                "netkit.response_body_end", "netkit.attempt_end", "netkit.call_end",
            ])
        let firstEnd = try #require(request.events.first { $0.name == "netkit.attempt_end" })
        #expect(firstEnd.attributes.get("http.response.status_code") == .int64(503))
        #expect(firstEnd.attributes.get("netkit.attempt") == .int64(1))
        #expect(
            request.events.first { $0.name == "netkit.retry_scheduled" }?.attributes.get("netkit.wait_ms") == .int64(0))
        for event in request.events {
            #expect(!String(describing: event.attributes).contains("SECRET"), "no event attribute carries the query")
        }
    }
}
#endif
