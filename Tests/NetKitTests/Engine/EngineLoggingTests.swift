import Foundation
import NetKitLock
import Testing
import NetKit
import NetKitTesting

@Suite("Engine logging")
struct EngineLoggingTests {
    struct Search: NetworkRequest {
        typealias Response = [User]
        var path: String { "/search" }
        var method: HTTPMethod { .get }
        var queryParameters: [String: String]? { ["q": "ann & bob", "access_token": "query-s3cr3t"] }
        var headers: [String: String]? {
            ["Cookie": "session=cookie-s3cr3t", "Proxy-Authorization": "Basic proxy-s3cr3t"]
        }
        var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 2, delay: 0) }
    }

    let secrets = [
        "query-s3cr3t", "cookie-s3cr3t", "proxy-s3cr3t", "token-0", "token-1", "set-cookie-s3cr3t", "body-s3cr3t",
        "ann & bob", "ann%20%26%20bob",
    ]

    /// Runs a request through 401 → refresh → 503 → retry → 200, then one that fails with 404, logging at `level`.
    func run(at level: NetworkLogger.Level) async throws -> [String] {
        let lines = Lock<[String]>([])
        let logger = NetworkLogger(subsystem: NetworkLogger.placeholderSubsystem, minimumLevel: level) {
            level, message in
            lines.withLock { $0.append("\(level.name): \(message)") }
        }
        let refresher = CountingRefresher()
        let stub = StubTransport(replies: [
            .status(401),
            .json(#"{"refresh_token":"body-s3cr3t"}"#, status: 503, headers: ["Set-Cookie": "id=set-cookie-s3cr3t"]),
            .json(#"[{"id":1,"name":"ann"}]"#),
            .json(#"{"error":"nothing here","access_token":"body-s3cr3t"}"#, status: 404),
        ])
        let executor = RequestExecutor(transport: stub, plugins: [LoggingPlugin(logger: logger)])
        let coordinator = TokenRefreshCoordinator(refresher: refresher)
        _ = try await executor.send(
            Search(), baseURL: stubBase, accessToken: { refresher.token }, credentials: coordinator)
        await #expect(throws: HTTPError.self) {
            try await executor.send(
                Search(), baseURL: stubBase, accessToken: { refresher.token }, credentials: coordinator)
        }
        #expect(stub.requestCount == 4)
        return lines.withLock { $0 }
    }

    @Test(
        "no level crashes on a query, and no line carries a query value, a token, a cookie or a secret body field",
        arguments: NetworkLogger.Level.allCases)
    func everyLevel(level: NetworkLogger.Level) async throws {
        let lines = try await run(at: level)
        for line in lines {
            for secret in secrets { #expect(!line.contains(secret), "\(line)") }
            #expect(!line.contains(NetworkLogger.placeholderSubsystem))
        }
        let failure = lines.filter { $0.hasPrefix("error: ") && $0.contains("failed") }
        #expect(failure.count == 1, "a failed request is visible at every level, the default (error) included")
        #expect(
            failure.first?.hasPrefix(
                "error: GET https://api.test/v1/search?access_token=…&q=… failed after 1 attempt(s) in ") == true)
        #expect(failure.first?.contains(": HTTP 404: ") == true)
        #expect(failure.first?.contains("nothing here") == true)
        let retries = lines.filter { $0.hasPrefix("info: ") && $0.contains("attempt 3 after waiting") }
        let refreshes = lines.filter { $0.hasPrefix("info: ") && $0.contains("credential renewed after 401") }
        let exchanges = lines.filter { $0.hasPrefix("debug: ← ") }
        #expect(retries.count == (level <= .info ? 1 : 0))
        #expect(refreshes.count == (level <= .info ? 1 : 0))
        #expect(exchanges.count == (level == .debug ? 4 : 0))
    }

    @Test("cancellation is logged at notice, not as a failure")
    func cancellation() async throws {
        let lines = Lock<[String]>([])
        let logger = NetworkLogger(subsystem: "test", minimumLevel: .debug) { level, message in
            lines.withLock { $0.append("\(level.name): \(message)") }
        }
        let (reached, signal) = AsyncStream.makeStream(of: Void.self)
        let executor = RequestExecutor(
            transport: OpenBodyTransport(status: 200, firstChunk: Data(), reached: signal),
            plugins: [LoggingPlugin(logger: logger)])
        let task = Task { try await executor.send(GetUser(), baseURL: stubBase) }
        var iterator = reached.makeAsyncIterator()
        await iterator.next()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(lines.withLock { $0 }.last == "notice: GET https://api.test/v1/users/1 cancelled")
    }
}
