import Foundation
import NetCore
import NetKitLock
import Testing

@Suite("Structured log records")
struct LoggingRecordTests {
    /// Collects what a logger writes.
    final class Collected: Sendable {
        let lines = Lock<[String]>([])
        let records = Lock<[NetworkLogRecord]>([])

        func lineLogger(_ level: NetworkLogger.Level?) -> NetworkLogger {
            guard let level else { return .disabled }
            return NetworkLogger(subsystem: "test", minimumLevel: level) { level, line in
                self.lines.withLock { $0.append("\(level.name): \(line)") }
            }
        }

        func recordLogger(_ level: NetworkLogger.Level?) -> NetworkLogger {
            NetworkLogger(subsystem: "test", minimumLevel: level) { record in
                self.records.withLock { $0.append(record) }
            }
        }
    }

    let start = ContinuousClock.now

    func request() throws -> TransportRequest {
        let url = try #require(URL(string: "https://api.test/v1/search?api_key=SECRET&q=cats"))
        var request = TransportRequest(head: try HTTPRequestHead(method: .get, url: url))
        try request.setHeader("Authorization", "Bearer token-s3cr3t")
        try request.setHeader("Cookie", "session=cookie-s3cr3t")
        try request.setHeader("X-Request-ID", "req-7")
        request.operationID = "search"
        return request
    }

    /// Runs one request's hooks through `plugin`: a retry after a 503, then a failure, then a cancellation.
    func drive(_ plugin: LoggingPlugin) async throws {
        var request = try request()
        let prepared = PluginContext(
            requestNumber: 42, attempt: 0, reason: .initial, isStreaming: false, startedAt: start)
        request = try await plugin.prepare(request, context: prepared)
        let first = PluginContext(requestNumber: 42, attempt: 1, reason: .initial, isStreaming: false, startedAt: start)
        try await plugin.willSend(&request, context: first)
        let second = PluginContext(
            requestNumber: 42, attempt: 2, reason: .retry(wait: .milliseconds(250)), isStreaming: false,
            startedAt: start)
        try await plugin.willSend(&request, context: second)
        await plugin.didReceive(
            ReceivedResponse(head: HTTPResponseHead(statusCode: 503), body: Data("busy".utf8)), for: request,
            context: second)
        var metrics = RequestMetrics(start: start)
        metrics.attempts = 2
        metrics.end = start + .milliseconds(1234)
        let built = try self.request()
        let ended = PluginContext(
            requestNumber: 42, attempt: 2, reason: .retry(wait: .milliseconds(250)), isStreaming: false,
            startedAt: start)
        await plugin.wasCancelled(built, metrics: metrics, context: ended)
        await plugin.didFinish(
            built, result: .failure(TransportError(.connectionLost, host: "api.test")), metrics: metrics,
            context: ended)
    }

    @Test("a record sink gets the very lines a line sink gets, at the same levels")
    func sameText() async throws {
        let collected = Collected()
        try await drive(LoggingPlugin(logger: collected.lineLogger(.debug), includesCURL: true))
        try await drive(LoggingPlugin(logger: collected.recordLogger(.debug), includesCURL: true))
        let lines = collected.lines.withLock { $0 }
        let records = collected.records.withLock { $0 }.map { "\($0.level.name): \($0.message)" }
        #expect(lines.count == 8)
        // The response line's duration is measured while the test runs: compare up to it.
        #expect(
            lines.map { $0.components(separatedBy: " in ").first! }
                == records.map { $0.components(separatedBy: " in ").first! })
        let retry = "info: GET https://api.test/v1/search?api_key=…&q=… (search): attempt 2 after waiting 250 ms"
        #expect(lines.contains(retry))
    }

    @Test("records carry the request's facts, and none of its secrets")
    func fields() async throws {
        let collected = Collected()
        let plugin = LoggingPlugin(logger: collected.recordLogger(.debug), includesCURL: true)
        try await drive(plugin)
        let records = collected.records.withLock { $0 }
        #expect(
            records.map(\.event) == [.attempt, .curl, .reattempt, .attempt, .curl, .response, .cancellation, .failure])
        for record in records {
            #expect(record.method == .get)
            #expect(record.url == "https://api.test/v1/search?api_key=…&q=…")
            #expect(record.requestNumber == 42)
            #expect(record.requestID == "req-7")
            #expect(record.operationID == "search")
            let texts = [record.message, record.url, record.requestID, record.operationID, record.error].compactMap(
                \.self)
            for text in texts {
                for secret in ["token-s3cr3t", "cookie-s3cr3t", "SECRET", "cats"] { #expect(!text.contains(secret)) }
            }
        }
        let response = try #require(records.first { $0.event == .response })
        #expect(response.statusCode == 503 && response.attempt == 2 && response.duration != nil)
        let failure = try #require(records.last)
        #expect(failure.level == .error && failure.attempt == 2 && failure.duration == .milliseconds(1234))
        #expect(
            failure.error
                == "TransportError.connectionLost: Connection lost: api.test. The server at api.test closed the "
                + "connection; an idempotent request is retried by its retry policy")
        #expect(plugin.trackedRequests == 0)
    }

    @Test("a request ID in a header the rules hide is left out")
    func hiddenRequestID() async throws {
        let collected = Collected()
        let plugin = LoggingPlugin(
            logger: collected.recordLogger(.debug), rules: RedactionRules(headerNames: ["X-Request-ID"]))
        try await drive(plugin)
        #expect(collected.records.withLock { $0 }.allSatisfy { $0.requestID == nil })
    }

    @Test("the request ID comes from the header the plugin names")
    func requestIDHeader() async throws {
        let collected = Collected()
        let plugin = LoggingPlugin(logger: collected.recordLogger(.debug), requestIDHeaderName: "X-Correlation-ID")
        var request = try request()
        try request.setHeader("X-Correlation-ID", "corr-3")
        let context = PluginContext(requestNumber: 1, attempt: 1, reason: .initial, isStreaming: false)
        try await plugin.willSend(&request, context: context)
        #expect(collected.records.withLock { $0 }.map(\.requestID) == ["corr-3"])
        #expect(plugin.with(logger: .disabled).requestIDHeaderName == "X-Correlation-ID")
    }

    @Test("below the level no record is made, and an off structured logger takes no hook at all")
    func quiet() async throws {
        let collected = Collected()
        let quiet = LoggingPlugin(logger: collected.recordLogger(.error))
        try await drive(quiet)
        #expect(collected.records.withLock { $0 }.map(\.event) == [.failure])
        #expect(quiet.hooks == [.prepare, .didSucceed, .didFail])
        #expect(quiet.trackedRequests == 0)
        #expect(LoggingPlugin(logger: collected.recordLogger(nil)).hooks.isEmpty)
        #expect(LoggingPlugin(logger: collected.lineLogger(.error)).hooks == [.didFail])
    }

    @Test("a plain message reaches a record sink as a message record")
    func message() {
        let collected = Collected()
        collected.recordLogger(.info).log(.info, "hello")
        collected.recordLogger(.info).log(.debug, "dropped")
        let records = collected.records.withLock { $0 }
        #expect(records == [NetworkLogRecord(level: .info, event: .message, message: "hello")])
    }
}
