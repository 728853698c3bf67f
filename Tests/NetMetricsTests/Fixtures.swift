#if Metrics
import Foundation
import NetCore
import NetKitLock

let base = URL(string: "https://api.test/v1")!

/// A GET with a query secret that must never become a dimension.
struct Search: Endpoint {
    typealias Response = EmptyResponse
    var retries = 0
    var path: String { "/search" }
    var method: HTTPMethod { .get }
    var queryParameters: [String: String]? { ["api_key": "SECRET"] }
    var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: retries, delay: 0) }
}

/// A POST of a 5-byte body.
struct Upload: Endpoint {
    typealias Response = EmptyResponse
    var path: String { "/uploads" }
    var method: HTTPMethod { .post }
    var body: RequestBody? { RequestBody(data: Data("hello".utf8), contentType: "text/plain") }
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

/// A credential renewed once per 401: the token goes from `stale` to `fresh`.
final class Renewal: CredentialRecovery {
    private let state = Lock((generation: UInt64(0), token: "stale", refreshes: 0))

    var token: String { state.withLock { $0.token } }
    var refreshes: Int { state.withLock { $0.refreshes } }

    func generation() async -> UInt64 { state.withLock { $0.generation } }

    func recover(fromUnauthorizedAt generation: UInt64) async throws {
        state.withLock { state in
            guard state.generation == generation else { return }
            state.generation += 1
            state.token = "fresh"
            state.refreshes += 1
        }
    }
}
#endif
