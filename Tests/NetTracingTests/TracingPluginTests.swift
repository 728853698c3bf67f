#if Tracing
import Foundation
import InMemoryTracing
import NetCore
import NetKitTesting
import NetTracing
import Testing
import Tracing

@Suite("TracingPlugin through a RequestExecutor")
struct TracingPluginTests {
    let tracer = W3CTracer()

    func executor(_ stub: StubTransport, _ extra: [any Plugin] = []) -> (RequestExecutor, TracingPlugin) {
        let plugin = TracingPlugin(tracer: tracer)
        return (RequestExecutor(transport: stub, plugins: extra + [plugin]), plugin)
    }

    /// Every span ended, and the plugin keeps nothing.
    func expectNothingLeft(_ plugin: TracingPlugin) {
        #expect(tracer.recorder.activeSpans.isEmpty)
        #expect(plugin.requestsInFlight == 0)
    }

    @Test("a success: a client request span, one client attempt span under it, attributes, traceparent sent")
    func success() async throws {
        let stub = StubTransport(replies: [.json(#"{"ok":true}"#)])
        let (executor, plugin) = executor(stub)
        _ = try await executor.send(Search(), baseURL: base)

        let (request, attempts) = tracer.spans
        let span = try #require(request)
        let attempt = try #require(attempts.first)
        #expect(tracer.recorder.finishedSpans.count == 2)
        #expect(span.parentSpanID == nil)
        #expect(attempt.traceID == span.traceID)
        #expect(span.kind == .client && attempt.kind == .client)
        #expect(span.operationName == "GET" && attempt.operationName == "GET")
        for described in [span, attempt] {
            #expect(described.string("http.request.method") == "GET")
            #expect(described.string("url.full") == "https://api.test/v1/search?api_key=…&q=…")
            #expect(described.string("url.scheme") == "https")
            #expect(described.string("server.address") == "api.test")
            #expect(described.int("server.port") == 443)
            #expect(described.int("http.response.status_code") == 200)
            #expect(described.attributes.get("error.type") == nil)
            #expect(described.attributes.get("http.request.resend_count") == nil)
            #expect(described.status == nil)
        }
        #expect(stub.requests.first?.value(forHeader: "traceparent") == "00-\(attempt.traceID)-\(attempt.spanID)-01")
        #expect(attempt.traceID.count == 32 && attempt.spanID.count == 16)
        expectNothingLeft(plugin)
    }

    @Test("the request span is a child of the caller's ServiceContext, with and without a timeout")
    func callerContext() async throws {
        for timeout in [nil, Duration.seconds(600)] {
            tracer.recorder.clearAll()
            var (executor, plugin) = executor(StubTransport(replies: [.status(200)]))
            executor.defaultTimeout = timeout
            let caller = tracer.startSpan("caller", context: .topLevel)
            try await ServiceContext.withValue(caller.context) {
                _ = try await executor.send(Search(), baseURL: base)
            }
            caller.end()
            let request = tracer.recorder.finishedSpans.first {
                $0.operationName == "GET" && $0.parentSpanID == caller.spanID
            }
            #expect(request != nil, "timeout: \(String(describing: timeout))")
            #expect(request?.traceID == caller.traceID)
            expectNothingLeft(plugin)
        }
    }

    @Test("a 500 marks both spans failed with error.type 500 and records a redacted error")
    func serverError() async throws {
        let (executor, plugin) = executor(StubTransport(replies: [.status(500)]))
        await #expect(throws: HTTPError.self) { try await executor.send(Search(), baseURL: base) }
        let (request, attempts) = tracer.spans
        let span = try #require(request)
        #expect(attempts.count == 1)
        for failed in [span] + attempts {
            #expect(failed.int("http.response.status_code") == 500)
            #expect(failed.string("error.type") == "500")
            #expect(failed.status?.code == .error)
        }
        let recorded = try #require(span.errors.first?.error as? RedactedError)
        #expect(recorded.type == "HTTPError")
        #expect(span.errors.count == 1 && attempts.first?.errors.isEmpty == true)
        expectNothingLeft(plugin)
    }

    @Test("a transport error ends the attempt span with the error's type and no status code")
    func transportError() async throws {
        let (executor, plugin) = executor(StubTransport(replies: [.failure(.cannotConnect)]))
        await #expect(throws: TransportError.self) { try await executor.send(Search(), baseURL: base) }
        let (request, attempts) = tracer.spans
        let span = try #require(request)
        let attempt = try #require(attempts.first)
        for failed in [span, attempt] {
            #expect(failed.attributes.get("http.response.status_code") == nil)
            #expect(failed.string("error.type") == "TransportError")
            #expect(failed.status?.code == .error)
        }
        let recorded = try #require(span.errors.first?.error as? RedactedError)
        #expect(recorded.description.hasPrefix("TransportError.cannotConnect"))
        expectNothingLeft(plugin)
    }

    @Test("a retry: two attempt spans under one request span, each with its own traceparent")
    func retry() async throws {
        let stub = StubTransport(replies: [.status(503), .status(200)])
        let (executor, plugin) = executor(stub)
        _ = try await executor.send(Search(retries: 1), baseURL: base)
        let (request, attempts) = tracer.spans
        let span = try #require(request)
        #expect(attempts.count == 2)
        #expect(tracer.recorder.finishedSpans.count == 3)
        let first = try #require(attempts.first { $0.int("http.response.status_code") == 503 })
        let second = try #require(attempts.first { $0.int("http.response.status_code") == 200 })
        #expect(first.string("error.type") == "503" && first.status?.code == .error)
        #expect(first.attributes.get("http.request.resend_count") == nil)
        #expect(second.int("http.request.resend_count") == 1)
        #expect(second.status == nil && second.attributes.get("error.type") == nil)
        #expect(span.int("http.response.status_code") == 200)
        #expect(span.int("http.request.resend_count") == 1)
        #expect(span.status == nil)
        #expect(
            stub.requests.map { $0.value(forHeader: "traceparent") } == [
                "00-\(span.traceID)-\(first.spanID)-01", "00-\(span.traceID)-\(second.spanID)-01",
            ])
        expectNothingLeft(plugin)
    }

    @Test("an attempt that got no response and was retried ends as _OTHER when the next one starts")
    func retryAfterTransportError() async throws {
        let (executor, plugin) = executor(StubTransport(replies: [.failure(.connectionLost), .status(200)]))
        _ = try await executor.send(Search(retries: 1), baseURL: base)
        let (request, attempts) = tracer.spans
        #expect(request?.status == nil)
        #expect(attempts.count == 2)
        let lost = try #require(attempts.first { $0.attributes.get("http.response.status_code") == nil })
        #expect(lost.string("error.type") == "_OTHER")
        #expect(lost.status?.code == .error)
        expectNothingLeft(plugin)
    }

    @Test("a cancelled request ends both spans as CancellationError")
    func cancellation() async throws {
        let gate = StubGate()
        let (executor, plugin) = executor(StubTransport(replies: [StubTransport.Reply.status(200).held(by: gate)]))
        let task = Task { try await executor.send(Search(), baseURL: base) }
        await gate.waitForArrivals(1)
        #expect(plugin.requestsInFlight == 1)
        #expect(tracer.recorder.activeSpans.count == 2)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let (request, attempts) = tracer.spans
        for cancelled in [request].compactMap(\.self) + attempts {
            #expect(cancelled.string("error.type") == "CancellationError")
            #expect(cancelled.status?.code == .error)
        }
        #expect(attempts.count == 1)
        expectNothingLeft(plugin)
    }

    @Test("a stream's spans end when its head arrives")
    func stream() async throws {
        let (executor, plugin) = executor(StubTransport(replies: [.json(#"{"ok":true}"#)]))
        let (response, _) = try await executor.streamingResponse(for: Search(), baseURL: base)
        #expect(response.statusCode == 200)
        let (request, attempts) = tracer.spans
        #expect(request?.int("http.response.status_code") == 200)
        #expect(attempts.count == 1)
        expectNothingLeft(plugin)
    }

    @Test("an operation ID names the spans and is an attribute")
    func operation() async throws {
        let (executor, plugin) = executor(
            StubTransport(replies: [.status(200)]), [NamesOperation(operationID: "searchItems")])
        _ = try await executor.send(Search(), baseURL: base)
        let (request, attempts) = tracer.spans
        #expect(request?.operationName == "searchItems")
        #expect(attempts.map(\.operationName) == ["searchItems"])
        #expect(request?.string("netkit.operation_id") == "searchItems")
        expectNothingLeft(plugin)
    }

    @Test(
        "trace context does not defeat coalescing: identical requests in flight share one call, W3C or the tracer's own fields",
        .timeLimit(.minutes(10)), arguments: [true, false])
    func coalescesDespiteTraceContext(w3c: Bool) async throws {
        let gate = StubGate()
        let stub = StubTransport { _, _ in .json("{}").held(by: gate) }
        let tracer: any Tracer = w3c ? self.tracer : InMemoryTracer()
        var coalescing = RequestExecutor(transport: stub, plugins: [TracingPlugin(tracer: tracer)])
        coalescing.coalescesIdenticalRequests = true
        let executor = coalescing
        let coalescer = try #require(executor.coalescer)
        let calls = (0..<3).map { _ in Task { _ = try await executor.send(Search(), baseURL: base) } }
        await coalescer.waitUntilWaiting(3)
        await gate.waitForArrivals(1)
        gate.open()
        for call in calls { try await call.value }
        #expect(stub.requestCount == 1)
        let sent = try #require(stub.requests.first)
        #expect(sent.value(forHeader: w3c ? "traceparent" : "in-memory-span-id") != nil)
    }

    @Test("the injector marks what it writes as correlation fields")
    func injectorMarksCorrelation() throws {
        var request = TransportRequest(head: try HTTPRequestHead(url: base))
        TransportRequestInjector().inject("1", forKey: "X-Vendor-Trace", into: &request)
        #expect(request.isCorrelationHeader("x-vendor-trace"))
    }

    @Test("the injector replaces an earlier value and leaves out one the wire cannot carry")
    func injector() throws {
        let url = try #require(URL(string: "https://api.test/v1"))
        var request = TransportRequest(head: try HTTPRequestHead(url: url))
        let injector = TransportRequestInjector()
        injector.inject("00-a-b-01", forKey: "traceparent", into: &request)
        injector.inject("00-c-d-01", forKey: "traceparent", into: &request)
        #expect(request.value(forHeader: "traceparent") == "00-c-d-01")
        injector.inject("x\r\nX-Evil: 1", forKey: "tracestate", into: &request)
        #expect(request.value(forHeader: "tracestate") == nil)
        #expect(request.value(forHeader: "X-Evil") == nil)
    }

    @Test("no token, cookie or query value reaches an attribute or a recorded error")
    func secrets() async throws {
        /// An error of a kind NetKit does not know, whose text quotes the URL with its secrets.
        struct Leaky: Error, CustomStringConvertible {
            var description: String {
                "failed for https://ann:pw-s3cr3t@api.test/v1/search?api_key=SECRET#access_token=token-s3cr3t"
            }
        }
        let stub = StubTransport(replies: [.status(503), .failure(Leaky())])
        let (executor, plugin) = executor(stub)
        await #expect(throws: Leaky.self) {
            try await executor.send(Search(retries: 2), baseURL: base, accessToken: { "token-s3cr3t" })
        }
        let recorded = try #require(tracer.spans.request?.errors.first?.error as? RedactedError)
        #expect(recorded.type == "Leaky")
        #expect(recorded.description == "Leaky: failed for https://api.test/v1/search?api_key=…#…")
        #expect(stub.requests.first?.value(forHeader: "Authorization") == "Bearer token-s3cr3t")
        let spans = tracer.recorder.finishedSpans
        #expect(spans.count >= 3)
        for span in spans {
            for text in span.texts {
                for secret in ["token-s3cr3t", "cookie-s3cr3t", "pw-s3cr3t", "SECRET", "cats"] {
                    #expect(!text.contains(secret), "\(text)")
                }
            }
        }
        expectNothingLeft(plugin)
    }
}
#endif
