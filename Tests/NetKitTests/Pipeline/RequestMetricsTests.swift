import Foundation
import Testing
import NetKit
import NetKitTesting

@Suite("Request metrics")
struct RequestMetricsTests {
    struct Upload: NetworkRequest {
        typealias Response = User
        var path: String { "/users" }
        var method: HTTPMethod { .put }
        var body: RequestBody? { RequestBody(data: Data(count: 100), contentType: "application/octet-stream") }
        var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 1, delay: 0.01, jitter: .none) }
    }

    @Test(
        "NetKit measures start, head, end, attempts, retry waits and bytes itself, and hands them to the caller and plugins"
    )
    func measured() async throws {
        let body = #"{"id":1,"name":"ann"}"#
        let stub = StubTransport(replies: [.data(Data("busy".utf8), status: 503), .json(body)])
        let log = EventLog()
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.plugins = [HookRecorder(name: "p", priority: .normal, log: log)]
        let response = try await manager.response(for: Upload(), accessToken: nil)
        let metrics = response.metrics
        #expect(metrics.attempts == 2)
        #expect(metrics.retryWaits == [.milliseconds(10)])
        #expect(metrics.bytesSent == 200, "the body went out twice")
        #expect(metrics.bytesReceived == Int64(4 + body.utf8.count), "the 503's body and the answer")
        let head = try #require(metrics.responseHead)
        let end = try #require(metrics.end)
        #expect(metrics.start <= head && head <= end)
        #expect(metrics.duration >= metrics.totalRetryWait)
        #expect(
            metrics.timeToResponseHead.map { $0 >= .milliseconds(10) } == true,
            "the last head came after the retry wait")
        #expect(response.statusCode == 200)
        #expect(log.matching("didFinish:200").count == 1)
    }

    /// A JSON user, `Content-Type` set.
    static func user(status: Int = 200) throws -> ScriptedHeadTransport.Answer {
        try .fields(
            status, [(name: "Content-Type", value: "application/json")],
            body: status == 200 ? #"{"id":1,"name":"ann"}"# : "busy")
    }

    @Test("responseHead is when the head arrived, not when a transport that delivers the body whole handed it over")
    func headTimeFromTransport() async throws {
        let transport = ScriptedHeadTransport([try Self.user()], handsOverLate: true)
        let response = try await RequestExecutor(transport: transport).response(for: GetUser(), baseURL: stubBase)
        let delivery = try #require(transport.deliveries.first)
        let head = try #require(response.metrics.responseHead)
        #expect(head == delivery.headReceivedAt)
        #expect(head < delivery.handedOverAt)
        #expect(delivery.handedOverAt <= (response.metrics.end ?? .now))
        #expect(response.metrics.timeToResponseHead == delivery.headReceivedAt - response.metrics.start)
    }

    @Test("after a retry, responseHead is the last head's arrival; the facade and the stream road report the same")
    func headTimeOnEveryRoad() async throws {
        let retried = ScriptedHeadTransport([try Self.user(status: 503), try Self.user()], handsOverLate: true)
        let manager = NetworkManager(baseURL: stubBase, transport: retried)
        let response = try await manager.response(for: GetUser(retries: 1), accessToken: nil)
        #expect(response.metrics.attempts == 2)
        #expect(retried.deliveries.count == 2)
        #expect(response.metrics.responseHead == retried.deliveries.last?.headReceivedAt)

        let streaming = ScriptedHeadTransport([try Self.user()], handsOverLate: true)
        let (_, metrics) = try await RequestExecutor(transport: streaming).streamingResponse(
            for: GetUser(), baseURL: stubBase)
        #expect(metrics.responseHead == streaming.deliveries.first?.headReceivedAt)
    }
}

@Suite("RequestMetrics as one line")
struct RequestMetricsDescriptionTests {
    @Test("duration, head, attempts with their waits, bytes both ways")
    func line() {
        let start = ContinuousClock.now
        var metrics = RequestMetrics(start: start)
        metrics.responseHead = start + .microseconds(95_140)
        metrics.end = start + .microseconds(182_360)
        metrics.attempts = 2
        metrics.retryWaits = [.milliseconds(100)]
        metrics.bytesSent = 0
        metrics.bytesReceived = 1_229
        #expect(
            metrics.description
                == "182.4 ms, head after 95.1 ms, 2 attempts (waited 100.0 ms), 0 B sent, 1.2 KiB received")
        metrics.end = start + .seconds(12) + .milliseconds(345)
        metrics.responseHead = nil
        metrics.attempts = 1
        metrics.retryWaits = []
        metrics.bytesReceived = 3 << 30
        #expect(metrics.description == "12.35 s, 1 attempt, 0 B sent, 3.0 GiB received")
    }

    @Test("a request that has not ended says so")
    func running() {
        #expect(RequestMetrics().description.hasPrefix("running for "))
    }
}
