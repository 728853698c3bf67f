import Foundation
import NetKitLock
import Testing
import NetKit
import NetKitTesting

/// `LoggingPlugin.includesPhases`: a `debug` record per request event, built on the event stream, that never writes a
/// path, a query or an error's text; off, or at a level above `debug`, the plugin observes nothing.
@Suite("Logging plugin: a line per phase, from the request's events")
struct LoggingPhaseTests {
    struct Search: Endpoint {
        typealias Response = Data
        var path: String { "/search" }
        var method: HTTPMethod { .get }
        var queryParameters: [String: String]? { ["api_key": "query-s3cr3t"] }
        var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 1, delay: 0) }
    }

    /// The records a logger wrote.
    final class Records: Sendable {
        private let records = Lock<[NetworkLogRecord]>([])
        var all: [NetworkLogRecord] { records.withLock { $0 } }
        var phases: [NetworkLogRecord] { all.filter { $0.event == .phase } }
        func append(_ record: NetworkLogRecord) { records.withLock { $0.append(record) } }
    }

    /// A plugin writing structured records at `level`, phases included when `phases` is set.
    static func logging(_ level: NetworkLogger.Level, phases: Bool, into records: Records) -> LoggingPlugin {
        var plugin = LoggingPlugin(
            logger: NetworkLogger(subsystem: "test", minimumLevel: level) { record in records.append(record) })
        plugin.includesPhases = phases
        return plugin
    }

    @Test("a retried request: a record per event, in order, each with its request number and offset")
    func phases() async throws {
        let records = Records()
        let stub = StubTransport(replies: [.failure(TransportError(.connectionLost)), .json("{}")])
        let executor = RequestExecutor(transport: stub, plugins: [Self.logging(.debug, phases: true, into: records)])
        _ = try await executor.send(Search(), baseURL: stubBase)
        let phases = records.phases
        let number = try #require(phases.first?.requestNumber)
        #expect(phases.allSatisfy { $0.requestNumber == number && $0.level == .debug })
        #expect(
            phases.map { $0.message.split(separator: " ", maxSplits: 3).last.map(String.init) ?? "" } == [
                "call_start GET https://api.test", "attempt_start 1 (initial)", "request_start", "attempt_failed 1",
                "retry_scheduled 0.0 seconds", "attempt_start 2 (retry(wait: 0.0 seconds))", "request_start",
                "request_head_sent", "response_head 200", "response_body_end 2 bytes", "attempt_end 2: 200",
                "call_end 200",
            ])
        #expect(phases.first?.message.hasPrefix("#\(number) +0.0 ms ") == true)
        let offsets = phases.compactMap(\.duration)
        #expect(offsets.count == phases.count && offsets == offsets.sorted())
        #expect(!records.all.contains { $0.message.contains("query-s3cr3t") })
        #expect(!phases.contains { $0.message.contains("/search") }, "a phase line names an origin, never a path")
    }

    @Test("a failure's phase lines name the failure, never its text (which may quote a URL)")
    func failureText() async throws {
        let records = Records()
        let stub = StubTransport(replies: [
            .failure(
                TransportError(.connectionLost, host: "api.test", detail: "lost https://api.test/search?k=query-s3cr3t")
            )
        ])
        let executor = RequestExecutor(transport: stub, plugins: [Self.logging(.debug, phases: true, into: records)])
        _ = try? await executor.send(NoRetry(), baseURL: stubBase)
        let phases = records.phases
        #expect(phases.last?.message.hasSuffix(" call_failed") == true, "\(phases.map(\.message))")
        #expect(!phases.contains { $0.message.contains("s3cr3t") })
    }

    struct NoRetry: Endpoint {
        typealias Response = Data
        var path: String { "/search" }
        var method: HTTPMethod { .get }
    }

    @Test("without includesPhases, or above debug, the plugin observes nothing: requests make no events for it")
    func off() async throws {
        for (level, phases) in [(NetworkLogger.Level.debug, false), (.info, true), (.error, true)] {
            let records = Records()
            let plugin = Self.logging(level, phases: phases, into: records)
            #expect(!plugin.hooks.contains(.observe))
            let executor = RequestExecutor(transport: StubTransport(replies: [.json("{}")]), plugins: [plugin])
            _ = try await executor.send(NoRetry(), baseURL: stubBase)
            #expect(records.phases.isEmpty)
        }
        let on = Self.logging(.debug, phases: true, into: Records())
        #expect(on.hooks.contains(.observe))
        #expect(on.with(logger: on.logger).includesPhases, "a copy for another logger keeps the setting")
    }
}
