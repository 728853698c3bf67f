#if Logging
import Foundation
import InMemoryLogging
import Logging
import NetCore
import NetKitTesting
import NetLogging
import Testing

@Suite("NetworkLogger(swiftLog:) through a RequestExecutor")
struct SwiftLogBridgeTests {
    @Test("an attempt and its response arrive with the request's metadata under the documented keys")
    func metadata() async throws {
        let (logger, handler) = inMemoryLogger(at: .debug)
        let stub = StubTransport(replies: [.json(#"{"ok":true}"#)])
        let executor = RequestExecutor(
            transport: stub,
            plugins: [
                RequestIDPlugin(makeIdentifier: { "req-1" }), NamesOperation(operationID: "searchItems"),
                LoggingPlugin(logger: NetworkLogger(swiftLog: logger)),
            ])
        _ = try await executor.send(Search(), baseURL: base)

        let entries = handler.entries
        #expect(entries.map(\.level) == [.debug, .debug])
        let attempt = try #require(entries.first)
        let response = try #require(entries.last)
        #expect(attempt["netkit.event"] == "attempt")
        #expect(attempt.message.description == "→ GET https://api.test/v1/search?api_key=…&q=… (searchItems)")
        #expect(attempt["http.request.method"] == "GET")
        #expect(attempt["url.full"] == "https://api.test/v1/search?api_key=…&q=…")
        #expect(attempt["netkit.attempt"] == "1")
        #expect(attempt["netkit.request_id"] == "req-1")
        #expect(attempt["netkit.operation_id"] == "searchItems")
        #expect(attempt["http.response.status_code"] == nil)
        #expect(response["netkit.event"] == "response")
        #expect(response["http.response.status_code"] == "200")
        #expect(response["netkit.duration_ms"].flatMap(Double.init) != nil)
        #expect(response["netkit.request_number"] != nil)
        #expect(response["netkit.request_number"] == attempt["netkit.request_number"])
    }

    @Test("no secret (token, cookie, query value) reaches any message or metadata value, curl lines included")
    func secrets() async throws {
        let (logger, handler) = inMemoryLogger(at: .trace)
        let stub = StubTransport(replies: [
            .status(503), .failure(.connectionLost),
            .json(#"{"error":"nope","access_token":"body-s3cr3t"}"#, status: 500),
        ])
        let executor = RequestExecutor(
            transport: stub,
            plugins: [LoggingPlugin(logger: NetworkLogger(swiftLog: logger), includesCURL: true)])
        await #expect(throws: HTTPError.self) {
            try await executor.send(Search(retries: 2), baseURL: base, accessToken: { "token-s3cr3t" })
        }
        let sent = try #require(stub.requests.last)
        #expect(sent.value(forHeader: "Authorization") == "Bearer token-s3cr3t", "the secrets were really sent")
        #expect(sent.value(forHeader: "Cookie") == "session=cookie-s3cr3t")
        #expect(sent.url?.absoluteString.contains("api_key=SECRET") == true)

        let entries = handler.entries
        #expect(
            Set(entries.compactMap { $0["netkit.event"] }) == ["attempt", "reattempt", "response", "curl", "failure"])
        for entry in entries {
            for text in entry.texts {
                for secret in secretValues + ["body-s3cr3t"] { #expect(!text.contains(secret), "\(text)") }
            }
        }
    }

    @Test("NetKit's levels map to swift-log's of the same name")
    func levels() async throws {
        let (logger, handler) = inMemoryLogger(at: .debug)
        let gate = StubGate()
        let stub = StubTransport { _, index in
            switch index {
            case 0: .status(503)
            case 1: .status(200)
            case 2: .status(404)
            default: StubTransport.Reply.status(200).held(by: gate)
            }
        }
        let executor = RequestExecutor(
            transport: stub, plugins: [LoggingPlugin(logger: NetworkLogger(swiftLog: logger))])
        _ = try await executor.send(Search(retries: 1), baseURL: base)
        await #expect(throws: HTTPError.self) { try await executor.send(Search(), baseURL: base) }
        let cancelled = Task { try await executor.send(Search(), baseURL: base) }
        await gate.waitForArrivals(1)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }

        let levels = Dictionary(
            handler.entries.map { ($0["netkit.event"] ?? "", Set([$0.level])) }, uniquingKeysWith: { $0.union($1) })
        #expect(levels["attempt"] == [.debug])
        #expect(levels["response"] == [.debug])
        #expect(levels["reattempt"] == [.info])
        #expect(levels["cancellation"] == [.notice])
        #expect(levels["failure"] == [.error])
        for level in NetworkLogger.Level.allCases { #expect(level.swiftLogLevel.rawValue == level.name) }
    }

    @Test(
        "the Logger's own level decides what NetKit writes",
        arguments: [
            (Logger.Level.trace, NetworkLogger.Level?.some(.debug)), (.debug, .debug), (.info, .info),
            (.notice, .notice), (.warning, .error), (.error, .error), (.critical, nil),
        ])
    func loggerLevel(level: Logger.Level, expected: NetworkLogger.Level?) async throws {
        let (logger, handler) = inMemoryLogger(at: level)
        let networkLogger = NetworkLogger(swiftLog: logger)
        #expect(networkLogger.minimumLevel == expected)
        #expect(networkLogger.subsystem == "test.netkit")
        let stub = StubTransport(replies: [.status(503), .status(500)])
        let executor = RequestExecutor(transport: stub, plugins: [LoggingPlugin(logger: networkLogger)])
        await #expect(throws: HTTPError.self) { try await executor.send(Search(retries: 1), baseURL: base) }
        let written = handler.entries
        #expect(written.allSatisfy { $0.level >= level })
        #expect(written.contains { $0["netkit.event"] == "failure" } == (level < .critical))
        #expect(written.contains { $0["netkit.event"] == "reattempt" } == (level <= .info))
    }

    @Test("a curl line asked for is written at the Logger's level when that is above debug")
    func curlAtLoggerLevel() async throws {
        let (logger, handler) = inMemoryLogger(at: .notice)
        let executor = RequestExecutor(
            transport: StubTransport(replies: [.status(200)]),
            plugins: [LoggingPlugin(logger: NetworkLogger(swiftLog: logger), includesCURL: true)])
        _ = try await executor.send(Search(), baseURL: base)
        let curl = handler.entries.filter { $0["netkit.event"] == "curl" }
        #expect(curl.count == 1)
        #expect(curl.first?.level == .notice)
        #expect(curl.first?.message.description.hasPrefix("curl") == true)
    }

    @Test("retries carry their attempt numbers")
    func attempts() async throws {
        let (logger, handler) = inMemoryLogger(at: .debug)
        let stub = StubTransport(replies: [.status(503), .status(503), .status(200)])
        let executor = RequestExecutor(
            transport: stub, plugins: [LoggingPlugin(logger: NetworkLogger(swiftLog: logger))])
        _ = try await executor.send(Search(retries: 2), baseURL: base)
        let entries = handler.entries
        #expect(
            entries.filter { $0["netkit.event"] == "attempt" }.compactMap { $0["netkit.attempt"] } == ["1", "2", "3"])
        #expect(entries.filter { $0["netkit.event"] == "reattempt" }.compactMap { $0["netkit.attempt"] } == ["2", "3"])
        #expect(
            entries.filter { $0["netkit.event"] == "response" }.compactMap { $0["http.response.status_code"] } == [
                "503", "503", "200",
            ])
        #expect(Set(entries.compactMap { $0["netkit.request_number"] }).count == 1)
    }

    @Test("a failure without a response still carries the request's number, ID and operation, and nothing is kept")
    func failureCorrelation() async throws {
        let (logger, handler) = inMemoryLogger(at: .debug)
        let logging = LoggingPlugin(logger: NetworkLogger(swiftLog: logger))
        let executor = RequestExecutor(
            transport: StubTransport(replies: [.failure(.connectionLost)]),
            plugins: [RequestIDPlugin(makeIdentifier: { "req-9" }), NamesOperation(operationID: "find"), logging])
        await #expect(throws: TransportError.self) { try await executor.send(Search(), baseURL: base) }
        let attempt = try #require(handler.entries.first { $0["netkit.event"] == "attempt" })
        let failure = try #require(handler.entries.first { $0["netkit.event"] == "failure" })
        #expect(failure.level == .error)
        #expect(failure["netkit.request_id"] == "req-9")
        #expect(failure["netkit.operation_id"] == "find")
        #expect(failure["netkit.request_number"] == attempt["netkit.request_number"])
        #expect(failure["netkit.attempt"] == "1")
        #expect(failure["netkit.error"]?.hasPrefix("TransportError.connectionLost") == true)
        #expect(logging.trackedRequests == 0)
    }
}
#endif
