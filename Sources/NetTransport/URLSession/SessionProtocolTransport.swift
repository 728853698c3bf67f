import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

/// A transport over any ``URLSessionProtocol``: the bridge that keeps EKNetwork's `session:` argument working
/// for mocks and custom sessions.
///
/// The body arrives all at once, so progress jumps to 1.0 at the end and nothing streams.
public struct SessionProtocolTransport: HTTPTransport {
    /// The session requests go through.
    public let session: any URLSessionProtocol

    /// Wraps `session`.
    public init(session: any URLSessionProtocol) {
        self.session = session
    }

    /// Sends `request` with `data(for:)`.
    /// - Throws: `NetworkError.invalidResponse` when the session answers with something that is not HTTP.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var head = try URLRequest(head: request)
        try head.attachBody(request.body)
        let (data, response) = try await session.data(for: head)
        guard let http = response as? HTTPURLResponse else { throw NetworkError.invalidResponse }
        request.progress?.reportReceived(Int64(data.count), of: Int64(data.count))
        return TransportResponse(
            head: HTTPResponseHead(http), body: ResponseBody(data: data), url: http.url == head.url ? nil : http.url)
    }
}
