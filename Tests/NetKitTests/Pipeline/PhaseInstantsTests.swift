import Foundation
import NetKit
import NetKitLock
import NetKitTesting
import Testing

/// The per-phase instants of ``RequestMetrics``, which every request has, observed or not: when the exchange went to
/// the transport, what the transport told sent, the head, the body's end, and the time spent in queues. The engine
/// takes what a transport tells of what it sent only once, in order, and before the head.
@Suite("Per-phase instants in RequestMetrics (stub transport)")
struct PhaseInstantsTests {
    /// A `PUT` of 100 bytes.
    typealias Upload = RequestMetricsTests.Upload

    static let userJSON = #"{"id":1,"name":"ann"}"#

    @Test(
        "a request with a body: start, head sent, body sent, head, body end and end, in that order, without an observer"
    )
    func upload() async throws {
        let stub = StubTransport(replies: [.json(Self.userJSON)])
        let metrics = try await RequestExecutor(transport: stub).response(for: Upload(), baseURL: stubBase).metrics
        let instants = [
            metrics.start, try #require(metrics.requestStart), try #require(metrics.requestHeadSent),
            try #require(metrics.requestBodySent), try #require(metrics.responseHead),
            try #require(metrics.responseBodyEnd), try #require(metrics.end),
        ]
        #expect(instants == instants.sorted())
        #expect(metrics.queueWait == .zero)
    }

    @Test("a GET has no body sent; its head is told sent with the answer")
    func get() async throws {
        let stub = StubTransport(replies: [.json(Self.userJSON)])
        let metrics = try await RequestExecutor(transport: stub).response(for: GetUser(), baseURL: stubBase).metrics
        let headSent = try #require(metrics.requestHeadSent)
        #expect(try #require(metrics.requestStart) <= headSent)
        #expect(headSent <= (try #require(metrics.responseHead)))
        #expect(metrics.requestBodySent == nil)
    }

    /// Tells what it sent out of order, twice, and after it handed the head over; keeps what it was given.
    final class MisreportingTransport: HTTPTransport {
        let late = Lock<(@Sendable (TransportRequest.SentPart) -> Void)?>(nil)

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            guard let onSent = request.onSent else { throw NetworkError.invalidResponse }
            onSent(.body(bytes: 1))  // before the head: dropped
            onSent(.head)
            onSent(.head)  // twice: dropped
            onSent(.body(bytes: 100))
            onSent(.body(bytes: 100))  // twice: dropped
            late.withLock { $0 = onSent }
            return TransportResponse(
                head: HTTPResponseHead(
                    statusCode: 200,
                    headerFields: try HTTPHeaderFields([(name: "Content-Type", value: "application/json")])),
                body: ResponseBody(data: Data(PhaseInstantsTests.userJSON.utf8)))
        }
    }

    @Test(
        "what a transport tells out of order, twice, or after the head is not the request's: the events keep the grammar"
    )
    func misreported() async throws {
        let recorder = EventRecorder()
        let transport = MisreportingTransport()
        let executor = RequestExecutor(transport: transport, configuration: .init(plugins: [recorder]))
        let response = try await executor.response(for: Upload(), baseURL: stubBase)
        let bodySent = try #require(response.metrics.requestBodySent)
        transport.late.withLock { $0 }?(.head)
        #expect(RequestEventGrammar.violations(in: recorder.events) == [])
        let kinds = recorder.events.map(\.kind)
        #expect(kinds.filter { $0 == .requestHeadSent }.count == 1)
        #expect(kinds.filter { $0 == .requestBodySent(bytes: 100) }.count == 1)
        #expect(!kinds.contains(.requestBodySent(bytes: 1)))
        #expect(bodySent <= (try #require(response.metrics.responseHead)))
    }

    /// Answers every request at once and never tells what it sent.
    struct SilentTransport: HTTPTransport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            TransportResponse(
                head: HTTPResponseHead(
                    statusCode: 200,
                    headerFields: try HTTPHeaderFields([(name: "Content-Type", value: "application/json")])),
                body: ResponseBody(data: Data(PhaseInstantsTests.userJSON.utf8)))
        }
    }

    @Test("a transport that never tells what it sent still works: no such events, no such instants, the grammar kept")
    func silent() async throws {
        let recorder = EventRecorder()
        let executor = RequestExecutor(transport: SilentTransport(), configuration: .init(plugins: [recorder]))
        let metrics = try await executor.response(for: Upload(), baseURL: stubBase).metrics
        #expect(metrics.requestStart != nil && metrics.responseHead != nil)
        #expect(metrics.requestHeadSent == nil && metrics.requestBodySent == nil)
        #expect(RequestEventGrammar.violations(in: recorder.events) == [])
        #expect(!recorder.events.contains { $0.kind == .requestHeadSent })
    }

    /// Tells the head sent, then hands over a head that arrived at the instant `arrival` gives.
    struct ArrivalTransport: HTTPTransport {
        let arrival: @Sendable () -> ContinuousClock.Instant

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            request.onSent?(.head)
            return TransportResponse(
                head: HTTPResponseHead(
                    statusCode: 200,
                    headerFields: try HTTPHeaderFields([(name: "Content-Type", value: "application/json")])),
                body: ResponseBody(data: Data(PhaseInstantsTests.userJSON.utf8)), headReceivedAt: arrival())
        }
    }

    @Test("the head is told at the instant the transport says it arrived, not at a clock reading of its own")
    func headToldAtArrival() async throws {
        let recorder = EventRecorder()
        let arrivals = Lock<[ContinuousClock.Instant]>([])
        let transport = ArrivalTransport {
            let now = ContinuousClock.now
            arrivals.withLock { $0.append(now) }
            return now
        }
        let executor = RequestExecutor(transport: transport, configuration: .init(plugins: [recorder]))
        _ = try await executor.response(for: GetUser(), baseURL: stubBase)
        let head = try #require(recorder.events.first { $0.kind == .responseHead(status: 200) })
        #expect(head.time == arrivals.withLock { $0 }.first)
        #expect(RequestEventGrammar.violations(in: recorder.events) == [])
    }

    @Test("a head said to have arrived before what the exchange sent is told after it: events keep their time order")
    func headToldAfterWhatWasSent() async throws {
        let recorder = EventRecorder()
        let transport = ArrivalTransport { .now - .seconds(60) }
        let executor = RequestExecutor(transport: transport, configuration: .init(plugins: [recorder]))
        _ = try await executor.response(for: GetUser(), baseURL: stubBase)
        let times = recorder.events.map(\.time)
        #expect(times == times.sorted())
        let sent = try #require(recorder.events.first { $0.kind == .requestHeadSent })
        let head = try #require(recorder.events.first { $0.kind == .responseHead(status: 200) })
        #expect(head.time == sent.time)
    }

    @Test(
        "a request that waited for its host's request slot counts the wait in queueWait; the one before it did not wait"
    )
    func queueWait() async throws {
        let gate = StubGate()
        let stub = StubTransport { request, _ in
            request.head.path.hasSuffix("/1") ? .json(Self.userJSON).held(by: gate) : .json(Self.userJSON)
        }
        let (queued, signal) = AsyncStream.makeStream(of: Void.self)
        let watcher = QueueWatcher(signal: signal)
        var configuration = RequestExecutor.Configuration(plugins: [watcher])
        configuration.maximumRequestsPerHost = 1
        let executor = RequestExecutor(transport: stub, configuration: configuration)
        let holder = Task { try await executor.response(for: GetUser(id: 1), baseURL: stubBase) }
        await gate.waitForArrivals(1)
        let waiter = Task { try await executor.response(for: GetUser(id: 2), baseURL: stubBase) }
        var signals = queued.makeAsyncIterator()
        await signals.next()
        gate.open()
        let held = try await holder.value.metrics
        let waited = try await waiter.value.metrics
        #expect(held.queueWait == .zero)
        #expect(waited.queueWait > .zero)
        #expect(waited.queueWait <= waited.start.duration(to: try #require(waited.requestStart)))
        #expect(try #require(waited.requestStart) >= (try #require(held.responseHead)))
    }

    /// Signals each `queued` event.
    final class QueueWatcher: RequestObserver {
        let signal: AsyncStream<Void>.Continuation

        init(signal: AsyncStream<Void>.Continuation) { self.signal = signal }

        func observe(_ event: RequestEvent) {
            if event.kind == .queued { signal.yield() }
        }
    }
}
