import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

/// A transport over any ``URLSessionProtocol``: the bridge that keeps EKNetwork's `session:` argument working
/// for mocks and custom sessions.
///
/// The body arrives all at once, so progress jumps to 1.0 at the end and nothing streams. A real `URLSession` is
/// borrowed (``URLSessionTransport/init(borrowing:bufferLimit:)``) rather than called: its `data(for:)` would follow
/// redirects itself on Linux, where a task delegate is never asked, and every hop is the engine's to decide
/// (`RedirectPolicy`).
public struct SessionProtocolTransport: HTTPTransport {
    /// The session requests go through.
    public let session: any URLSessionProtocol

    /// What requests go through when ``session`` is a `URLSession`: a transport that borrows its configuration.
    private let borrowed: URLSessionTransport?

    /// Wraps `session`.
    public init(session: any URLSessionProtocol) {
        self.session = session
        self.borrowed = (session as? URLSession).map { URLSessionTransport(borrowing: $0) }
    }

    /// Sends `request` with `data(for:)`.
    /// - Throws: `NetworkError.invalidResponse` when the session answers with something that is not HTTP.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        if let borrowed { return try await borrowed.send(request) }
        var head = try URLRequest(head: request)
        try head.attachBody(request.body)
        let (data, response) = try await session.data(for: head)
        guard let http = response as? HTTPURLResponse else { throw NetworkError.invalidResponse }
        // The session says nothing of its writes: the answer proves the request went out.
        request.onSent?(.head)
        if let length = request.body?.length { request.onSent?(.body(bytes: length)) }
        request.progress?.reportReceived(Int64(data.count), of: Int64(data.count))
        return TransportResponse(
            head: HTTPResponseHead(http), body: ResponseBody(data: data), url: http.url == head.url ? nil : http.url)
    }
}
