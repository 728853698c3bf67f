import Foundation
import NetKitLock
import Testing
import NetKit
import NetKitTesting

/// What keeps calls in flight apart, and what does not, over the stub transport: the transport does (copies of an
/// engine share one registry, not each other's calls); a request ID or trace context does not. Replies are held at
/// gates and released only once the callers are known to wait (``RequestCoalescer/waitUntilWaiting(_:)``).
@Suite("Coalescing keys: transports apart, correlation fields ignored (stub transport)", .timeLimit(.minutes(10)))
struct CoalescingPartitionTests {
    struct GetItem: NetworkRequest {
        typealias Response = EmptyResponse
        var headers: [String: String]? = nil
        var path: String { "/items/1" }
        var method: HTTPMethod { .get }
    }

    /// Records the `X-Request-ID` of the request each `didFinish` is given.
    final class FinishedIDs: Plugin {
        private let recorded = Lock<[String?]>([])

        var ids: [String?] { recorded.withLock { $0 } }

        func didFinish(
            _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics
        ) async {
            recorded.withLock { $0.append(request.value(forHeader: "X-Request-ID")) }
        }
    }

    static func held(_ gate: StubGate) -> StubTransport {
        StubTransport { _, _ in .json("{}").held(by: gate) }
    }

    static func engine(_ transport: any HTTPTransport, plugins: [any Plugin] = []) throws -> (
        RequestExecutor, RequestCoalescer
    ) {
        var executor = RequestExecutor(transport: transport, plugins: plugins)
        executor.coalescesIdenticalRequests = true
        return (executor, try #require(executor.coalescer))
    }

    @Test("copies of an engine over two transports never share a call")
    func transportsNeverShare() async throws {
        let (firstGate, secondGate) = (StubGate(), StubGate())
        let (first, second) = (Self.held(firstGate), Self.held(secondGate))
        let (executor, coalescer) = try Self.engine(first)
        var other = executor
        other.transport = second
        #expect(other.coalescer === coalescer, "the copy keeps the registry")
        let calls = [
            Task { try await executor.send(GetItem(), baseURL: stubBase) },
            Task { try await other.send(GetItem(), baseURL: stubBase) },
        ]
        await coalescer.waitUntilWaiting(2)
        firstGate.open()
        secondGate.open()
        for call in calls { _ = try await call.value }
        #expect(first.requestCount == 1)
        #expect(second.requestCount == 1, "the second transport was called for its own caller")
    }

    @Test(
        "with RequestIDPlugin installed, identical requests in flight share one call; each caller's plugins see its own ID"
    )
    func requestIDsDoNotDefeatCoalescing() async throws {
        let gate = StubGate()
        let stub = Self.held(gate)
        let recorder = FinishedIDs()
        let (executor, coalescer) = try Self.engine(stub, plugins: [RequestIDPlugin(), recorder])
        let calls = (0..<3).map { _ in Task { try await executor.send(GetItem(), baseURL: stubBase) } }
        await coalescer.waitUntilWaiting(3)
        await gate.waitForArrivals(1)
        gate.open()
        for call in calls { _ = try await call.value }
        #expect(stub.requestCount == 1)
        let sent = stub.requests.first?.value(forHeader: "X-Request-ID")
        #expect(sent != nil)
        let ids = recorder.ids
        #expect(ids.count == 3 && Set(ids).count == 3, "each caller's own request, with its own ID, is reported")
        #expect(ids.contains(sent), "the starter's ID is the one that went out")
    }

    @Test("a custom request-ID header and W3C or B3 trace context do not keep identical requests apart")
    func correlationHeadersIgnored() async throws {
        let gate = StubGate()
        let stub = Self.held(gate)
        let (executor, coalescer) = try Self.engine(stub, plugins: [RequestIDPlugin(headerName: "X-Correlation")])
        let headers: [[String: String]] = [
            ["traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "tracestate": "a=1"],
            ["traceparent": "00-0af7651916cd43dd8448eb211c80319d-b7ad6b7169203332-01", "baggage": "k=v"],
            ["X-B3-TraceId": "463ac35c9f6413ad", "X-B3-SpanId": "a2fb4a1d1a96d312", "b3": "1"],
        ]
        let calls = headers.map { fields in
            Task { try await executor.send(GetItem(headers: fields), baseURL: stubBase) }
        }
        await coalescer.waitUntilWaiting(3)
        await gate.waitForArrivals(1)
        gate.open()
        for call in calls { _ = try await call.value }
        #expect(stub.requestCount == 1)
    }

    @Test("a header that is a credential keeps requests apart even when a plugin marks it as a correlation field")
    func credentialsNeverCorrelation() async throws {
        let gate = StubGate()
        let stub = Self.held(gate)
        let (executor, coalescer) = try Self.engine(stub, plugins: [RequestIDPlugin(headerName: "X-Session-Token")])
        let calls = (0..<2).map { _ in Task { try await executor.send(GetItem(), baseURL: stubBase) } }
        await coalescer.waitUntilWaiting(2)
        gate.open()
        for call in calls { _ = try await call.value }
        #expect(stub.requestCount == 2)
    }
}
