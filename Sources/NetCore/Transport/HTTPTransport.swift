/// Anything that turns a ``TransportRequest`` into a ``TransportResponse``: URLSession, a stub, your own.
///
/// A transport moves bytes and nothing else: it does not build requests, authenticate, retry or judge
/// status codes. It returns when the response head has arrived and streams the body afterwards.
/// It must report upload progress to `request.progress` when it can, and must end the body with an error
/// when the connection breaks before the body is complete.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns once the response head is known.
    /// - Throws: transport errors (`URLError`), or `CancellationError` when the calling task is cancelled.
    func send(_ request: TransportRequest) async throws -> TransportResponse
}
