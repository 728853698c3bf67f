import Foundation
import NetKitLock
import Testing
import NetAuth
import NetCore
import NetKitTesting

/// What ``NetworkLogger`` promises: no line or record NetKit writes holds a credential, whoever declared it.
@Suite("Logged credentials")
struct LoggedCredentialTests {
    static let secrets = ["hk-s3cr3t", "qk-s3cr3t", "fk-s3cr3t", "tok-s3cr3t"]

    /// Every line and every record a debug logger with cURL lines writes for one request that fails with 500,
    /// sent through the engine with a header token, a query token, a key the engine declares and a bearer token.
    static func logged(rules: RedactionRules) async throws -> (lines: [String], records: [NetworkLogRecord]) {
        let lines = Lock<[String]>([])
        let records = Lock<[NetworkLogRecord]>([])
        let lineLogger = NetworkLogger(subsystem: "test", minimumLevel: .debug) { level, line in
            lines.withLock { $0.append("\(level.name): \(line)") }
        }
        let recordLogger = NetworkLogger(subsystem: "test", minimumLevel: .debug) { record in
            records.withLock { $0.append(record) }
        }
        let stub = StubTransport { _, _ in .json(#"{"error":"boom"}"#, status: 500) }
        var executor = RequestExecutor(
            transport: stub,
            plugins: [
                TokenPlugin(.header(name: "X-Client-Key")) { "hk-s3cr3t" },
                TokenPlugin(.queryItem(name: "code")) { "qk-s3cr3t" },
                BearerTokenPlugin { "tok-s3cr3t" },
                LoggingPlugin(logger: lineLogger, includesCURL: true, rules: rules),
                LoggingPlugin(logger: recordLogger, includesCURL: true, rules: rules),
            ])
        executor.credentialFields = .header("X-Functions-Key")
        struct Run: Endpoint {
            typealias Response = StatusCodeResponse
            var path: String { "/run" }
            var method: HTTPMethod { .post }
            var headers: [String: String]? { ["X-Functions-Key": "fk-s3cr3t"] }
            var queryParameters: [String: String]? { ["page": "2"] }
        }
        await #expect(throws: HTTPError.self) { try await executor.send(Run(), baseURL: authBase) }
        #expect(stub.requests.first?.value(forHeader: "X-Client-Key") == "hk-s3cr3t", "the token was sent")
        return (lines.withLock { $0 }, records.withLock { $0 })
    }

    @Test("a LoggingPlugin line hides a plugin-declared header and query item, and an engine-declared header")
    func linesHideDeclaredCredentials() async throws {
        // Rules that show every query value whose name does not look secret: `code` is hidden because TokenPlugin
        // declares it.
        let (lines, records) = try await Self.logged(rules: RedactionRules(queryValues: .named([])))
        #expect(lines.contains { $0.contains("curl") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("error:") }, "\(lines)")
        #expect(lines.contains { $0.contains("page=2") }, "what no one declared stays visible: \(lines)")
        for line in lines {
            for secret in Self.secrets { #expect(!line.contains(secret), "\(line)") }
        }
        #expect(!records.isEmpty)
        for record in records {
            let text = [record.message, record.url ?? "", record.error ?? "", record.requestID ?? ""].joined(
                separator: " ")
            for secret in Self.secrets { #expect(!text.contains(secret), "\(record)") }
        }
    }
}
