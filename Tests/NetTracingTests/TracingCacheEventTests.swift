#if Tracing
import Foundation
import InMemoryTracing
import NetCore
import NetKitTesting
import NetTracing
import Testing
import Tracing

@Suite("TracingPlugin: the response cache's events on the request span")
struct TracingCacheEventTests {
    let tracer = W3CTracer()

    @Test("the request span carries what the cache did, in order; the attempt span does not; no cache, no attribute")
    func cacheEvents() async throws {
        let stub = StubTransport { _, _ in .json("{}", headers: ["Cache-Control": "max-age=60"]) }
        var executor = RequestExecutor(transport: stub, plugins: [TracingPlugin(tracer: tracer)])
        executor.responseCache = ResponseCache(maximumBytes: 1 << 20)
        var seen: [SpanAttribute?] = []
        for _ in 0..<2 {
            tracer.recorder.clearAll()
            _ = try await executor.send(Search(), baseURL: base)
            let (request, attempts) = tracer.spans
            seen.append(try #require(request).attributes.get("netkit.cache_events"))
            #expect(attempts.allSatisfy { $0.attributes.get("netkit.cache_events") == nil })
        }
        #expect(seen == [.stringArray(["miss", "stored"]), .stringArray(["hit"])])

        tracer.recorder.clearAll()
        _ = try await RequestExecutor(transport: stub, plugins: [TracingPlugin(tracer: tracer)])
            .send(Search(), baseURL: base)
        #expect(try #require(tracer.spans.request).attributes.get("netkit.cache_events") == nil)
    }
}
#endif
