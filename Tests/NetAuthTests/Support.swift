import Foundation
import NetCore

/// Makes requests wait at a line, as the engine's line stage does, for tests of the line on its own.
struct WaitAtLine: Middleware {
    let line: HoldTheLine
    init(_ line: HoldTheLine) { self.line = line }

    func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        try await line.waitUntilOpen()
        return try await next(request)
    }
}

/// A request whose answer is only its status.
struct Ping: NetworkRequest {
    typealias Response = StatusCodeResponse
    var path: String { "/x" }
    var method: HTTPMethod { .get }
}
