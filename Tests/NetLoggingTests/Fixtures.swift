#if Logging
import Foundation
import InMemoryLogging
import Logging
import NetCore

let base = URL(string: "https://api.test/v1")!

/// The secrets `Search` and its token carry: none may reach a log entry.
let secretValues = ["token-s3cr3t", "cookie-s3cr3t", "SECRET", "cats"]

/// A GET with a secret query value, a cookie, and as many retries as asked.
struct Search: Endpoint {
    typealias Response = EmptyResponse
    var retries = 0
    var path: String { "/search" }
    var method: HTTPMethod { .get }
    var queryParameters: [String: String]? { ["api_key": "SECRET", "q": "cats"] }
    var headers: [String: String]? { ["Cookie": "session=cookie-s3cr3t"] }
    var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: retries, delay: 0) }
}

/// Names the request's operation, as NetOpenAPI does.
struct NamesOperation: Plugin {
    let operationID: String
    var priority: PluginPriority { .high }

    func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
        var request = request
        request.operationID = operationID
        return request
    }
}

/// A swift-log `Logger` at `level` writing to an in-memory handler, with no global bootstrap.
func inMemoryLogger(at level: Logger.Level) -> (Logger, InMemoryLogHandler) {
    let handler = InMemoryLogHandler()
    var logger = Logger(label: "test.netkit") { _ in handler }
    logger.logLevel = level
    return (logger, handler)
}

extension InMemoryLogHandler.Entry {
    /// The value of metadata `key` as text.
    subscript(_ key: String) -> String? { metadata[key]?.description }

    /// What the entry says: its message and every metadata value.
    var texts: [String] { [message.description] + metadata.values.map(\.description) }
}
#endif
