import Foundation
import NetKit

/// A transport whose response body delivers its first chunk and then stays open, as a slow server's would;
/// it says when a request has reached it.
struct OpenBodyTransport: HTTPTransport {
    let status: Int
    let firstChunk: Data
    let reached: AsyncStream<Void>.Continuation

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        continuation.yield(firstChunk)
        let head = HTTPResponseHead(statusCode: status, headerFields: try HTTPHeaderFields(["Content-Length": "1000"]))
        reached.yield()
        return TransportResponse(head: head, body: ResponseBody(stream))
    }
}
