import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

/// A transport over any ``URLSessionStreamingProtocol``: the bridge that keeps EKNetwork's `streamingSession:`
/// argument working for mocks. The mock's bytes are gathered into chunks of whatever has arrived.
public struct ByteStreamTransport: HTTPTransport {
    /// The session requests go through.
    public let session: any URLSessionStreamingProtocol

    /// Wraps `session`.
    public init(session: any URLSessionStreamingProtocol) {
        self.session = session
    }

    /// Starts `request` with `byteStream(for:)`.
    /// - Throws: `StreamingError.invalidResponse` when the session answers with something that is not HTTP.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var head = try URLRequest(head: request)
        try head.attachBody(request.body)
        let (bytes, response) = try await session.byteStream(for: head)
        guard let http = response as? HTTPURLResponse else { throw StreamingError.invalidResponse }
        // The session says nothing of its writes: the answer proves the request went out.
        request.onSent?(.head)
        if let length = request.body?.length { request.onSent?(.body(bytes: length)) }
        // Whatever has arrived is handed over as one chunk: a reader that waits gets each byte at once.
        let chunker = ByteStreamChunker(bytes)
        let chunks = AsyncThrowingStream<Data, any Error>(unfolding: { try await chunker.next() })
        return TransportResponse(
            head: HTTPResponseHead(http), body: ResponseBody(chunks), url: http.url == head.url ? nil : http.url)
    }
}
