import Foundation
import NetKitLock
import Testing
import NetKit
import NetKitTesting

/// `LoggingPlugin`'s line about what the response cache did, at the end of a request: plain and structured.
@Suite("Logging plugin: cache events")
struct LoggingCacheEventTests {
    struct Search: Endpoint {
        typealias Response = Data
        var path: String { "/search" }
        var method: HTTPMethod { .get }
        var queryParameters: [String: String]? { ["api_key": "query-s3cr3t"] }
    }

    static func executor(logging: LoggingPlugin) -> RequestExecutor {
        let stub = StubTransport { _, _ in .json("{}", headers: ["Cache-Control": "max-age=60"]) }
        var executor = RequestExecutor(transport: stub, plugins: [logging])
        executor.responseCache = ResponseCache(maximumBytes: 1 << 20)
        return executor
    }

    @Test("at debug, a request the cache took part in ends with a line of its events, the URL redacted as elsewhere")
    func debugLine() async throws {
        let lines = Lock<[String]>([])
        let logger = NetworkLogger(subsystem: "test", minimumLevel: .debug) { level, line in
            lines.withLock { $0.append("\(level.name): \(line)") }
        }
        let executor = Self.executor(logging: LoggingPlugin(logger: logger))
        _ = try await executor.send(Search(), baseURL: stubBase)
        _ = try await executor.send(Search(), baseURL: stubBase)
        let all = lines.withLock { $0 }
        let cacheLines = all.filter { $0.contains(": cache ") }
        #expect(
            cacheLines == [
                "debug: GET https://api.test/v1/search?api_key=…: cache miss, stored",
                "debug: GET https://api.test/v1/search?api_key=…: cache hit",
            ], "\(all)")
        #expect(all.last == cacheLines.last, "the cache line ends the request's lines: \(all)")
        #expect(!all.contains { $0.contains("query-s3cr3t") })
    }

    @Test("the structured record is a cache event with the events and the request's facts")
    func record() async throws {
        let records = Lock<[NetworkLogRecord]>([])
        let logger = NetworkLogger(subsystem: "test", minimumLevel: .debug) { record in
            records.withLock { $0.append(record) }
        }
        let executor = Self.executor(logging: LoggingPlugin(logger: logger))
        _ = try await executor.send(Search(), baseURL: stubBase)
        _ = try await executor.send(Search(), baseURL: stubBase)
        let cache = records.withLock { $0 }.filter { $0.event == .cache }
        #expect(cache.map(\.cacheEvents) == [[.miss, .stored], [.hit]])
        #expect(cache.allSatisfy { $0.level == .debug && $0.method == .get })
        #expect(cache.allSatisfy { $0.url == "https://api.test/v1/search?api_key=…" })
        #expect(cache.allSatisfy { $0.requestNumber != nil })
        #expect(Set(cache.compactMap(\.requestNumber)).count == 2, "each record names its own request")
        let others = records.withLock { $0 }.filter { $0.event != .cache }
        #expect(!others.isEmpty && others.allSatisfy { $0.cacheEvents.isEmpty }, "only cache records carry events")
    }

    @Test("above debug, or without a cache, no cache line")
    func quiet() async throws {
        let lines = Lock<[String]>([])
        let info = NetworkLogger(subsystem: "test", minimumLevel: .info) { _, line in
            lines.withLock { $0.append(line) }
        }
        let executor = Self.executor(logging: LoggingPlugin(logger: info))
        _ = try await executor.send(Search(), baseURL: stubBase)
        #expect(lines.withLock { $0 }.isEmpty)

        let debug = NetworkLogger(subsystem: "test", minimumLevel: .debug) { _, line in
            lines.withLock { $0.append(line) }
        }
        let stub = StubTransport { _, _ in .json("{}", headers: ["Cache-Control": "max-age=60"]) }
        _ = try await RequestExecutor(transport: stub, plugins: [LoggingPlugin(logger: debug)])
            .send(Search(), baseURL: stubBase)
        #expect(lines.withLock { $0 }.count == 2, "the attempt and the response, no cache line")
        #expect(!lines.withLock { $0 }.contains { $0.contains("cache") })
    }
}
