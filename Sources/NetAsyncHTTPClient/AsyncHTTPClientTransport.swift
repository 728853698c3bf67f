#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore
import NetMultipart
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// A transport on swift-server's AsyncHTTPClient (SwiftNIO): the engine for servers and for heavy concurrency on
/// Linux, where URLSession is several times slower, has no backpressure and truncates timeouts to whole seconds.
///
/// It streams request bodies from memory, files and streams with the connection's backpressure (`Content-Length`
/// when the size is known, chunked otherwise) and reports their progress; it returns at the response head and
/// streams the body with backpressure too (a consumer that stops reading holds the connection, and memory stays
/// flat); it cancels the request when the calling task is cancelled or the consumer drops the body; it follows
/// redirects without carrying `Authorization`, `Proxy-Authorization` or `Cookie` to another origin; it speaks
/// HTTP/1.1, and HTTP/2 over TLS where the server offers it.
///
/// Timeouts, to the millisecond: `URLRequest.timeoutInterval` bounds the wait for the response head, counted from
/// the start for a request whose body is in memory, and from the last body byte handed over for a streamed body (an
/// idle timeout: a long upload that keeps moving never trips it). After the head, the client's read timeout
/// (``defaultConfiguration``: 60 s) ends a body on which nothing arrives — a consumer that reads nothing for that
/// long stops the arrival too. NetKit's whole-request `timeout` stays in charge above all of these.
///
/// ```swift
/// let transport = AsyncHTTPClientTransport()          // owns its client
/// let manager = NetworkManager(baseURL: api, transport: transport)
/// ```
///
/// Built only with the package trait `AsyncHTTPClient`.
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// The client requests go through.
    public let client: HTTPClient
    /// Set when the transport created the client: it is shut down when the last user is gone.
    private let owned: OwnedClient?

    /// The configuration of a client the transport creates: redirects followed (at most 10, no cycles), a 10 s
    /// connect timeout, a 60 s read timeout (URLSession's default idle timeout), gzip and deflate bodies decoded
    /// (NetKit's response size limits apply to the decoded bytes), HTTP/2 where TLS negotiates it, and no retry of
    /// refused connections inside the client (NetKit's `RetryPolicy` decides about retries).
    public static var defaultConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 10, allowCycles: false),
            timeout: HTTPClient.Configuration.Timeout(connect: .seconds(10), read: .seconds(60)),
            decompression: .enabled(limit: .none)
        )
        configuration.httpVersion = .automatic
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// Creates a transport with a client of its own, which it shuts down once the transport (every copy) and every
    /// response body it returned are gone, or when you call ``shutdown()``.
    public init(
        configuration: HTTPClient.Configuration = AsyncHTTPClientTransport.defaultConfiguration,
        eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup
    ) {
        let client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
        self.client = client
        self.owned = OwnedClient(client)
    }

    /// Creates a transport on your client, which keeps its configuration and which the transport never shuts down.
    ///
    /// Redirects are followed as `client`'s configuration says; AsyncHTTPClient itself drops `Authorization`,
    /// `Proxy-Authorization` and `Cookie` on a redirect to another origin.
    public init(client: HTTPClient) {
        self.client = client
        self.owned = nil
    }

    /// Shuts the transport's own client down now, failing requests still running; does nothing for a client you
    /// passed in, or a second time. Optional: the client is shut down anyway when the transport goes away.
    public func shutdown() async throws {
        try await owned?.shutdown()
    }

    /// Sends `request`; returns when the response head has arrived.
    /// - Throws: `CancellationError` when the calling task is cancelled; `URLError` for transport failures
    ///   (`.timedOut`, `.cannotConnectToHost`, `.networkConnectionLost`, …, with AsyncHTTPClient's error beneath);
    ///   ``NetworkError/uploadStreamConsumed`` for a one-shot body sent twice; the `UploadSourceError` of a file or
    ///   stream that broke its declared length.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        guard let url = request.url else { throw URLError(.badURL) }
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = NIOHTTP1.HTTPMethod(rawValue: request.method)
        outgoing.headers = HeadConversion.headers(of: request.head)
        let upload = try Self.attachBody(of: request, to: &outgoing)
        let timeout = request.head.timeoutInterval

        let response: HTTPClientResponse
        do {
            if let upload {
                response = try await execute(outgoing, idleTimeout: timeout, upload: upload)
            } else {
                response = try await client.execute(outgoing, deadline: Self.deadline(after: timeout))
            }
        } catch {
            // No head, so the transfer is over: the caller must find the body's files closed.
            upload?.close()
            if let uploadError = upload?.error { throw uploadError }
            throw TransportErrorTranslation.translate(error, phase: .beforeHead, taskIsCancelled: Task.isCancelled)
        }

        // `HTTPClientResponse.url` parses the last URL again: only worth it when a redirect was followed.
        let finalURL = response.history.count > 1 ? response.url ?? url : url
        guard let head = HeadConversion.response(
            status: response.status, version: response.version, headers: response.headers, url: finalURL
        ) else {
            upload?.close()
            throw NetworkError.invalidResponse
        }
        let reportsDownload: Bool = if case .empty = request.payload { true } else { false }
        let chunks = ResponseChunks(
            body: response.body,
            progress: reportsDownload ? request.progress : nil,
            expectedLength: head.expectedContentLength,
            keepAlive: owned
        )
        // Dropping AsyncHTTPClient's body (or its iterator) early cancels the request; the upload, if the server
        // answered before reading all of it, is closed as well.
        guard let upload else { return TransportResponse(head: head, body: ResponseBody(chunks)) }
        return TransportResponse(head: head, body: ResponseBody(chunks, onAbandon: { upload.close() }))
    }

    /// Sets `outgoing`'s body from the payload; returns the pump of a body streamed piece by piece.
    ///
    /// A body in memory goes out in one write unless someone listens to its progress, which needs pieces.
    private static func attachBody(
        of request: TransportRequest,
        to outgoing: inout HTTPClientRequest
    ) throws(NetworkError) -> UploadPump? {
        let source: UploadSource
        switch request.payload {
        case .empty:
            return nil
        case .data(let data):
            guard request.progress != nil, !data.isEmpty else {
                outgoing.body = .bytes(ByteBuffer(data: data))
                return nil
            }
            source = UploadSource(data: data)
        case .source(let body):
            source = body
        }
        let pump = try UploadPump.make(for: source, progress: request.progress)
        outgoing.body = .stream(UploadPieces(pump: pump), length: pump.length.map { .known($0) } ?? .unknown)
        return pump
    }

    /// Runs a request with a streamed body until its head arrives, failing with `URLError(.timedOut)` once
    /// `idleTimeout` passes without the body moving (or, after the last byte, without an answer).
    private func execute(_ request: HTTPClientRequest, idleTimeout: TimeInterval, upload: UploadPump) async throws -> HTTPClientResponse {
        guard let idle = Self.duration(idleTimeout) else {
            return try await client.execute(request, deadline: .distantFuture)
        }
        let client = self.client
        return try await withThrowingTaskGroup(of: HTTPClientResponse?.self) { group in
            group.addTask { try await client.execute(request, deadline: .distantFuture) }
            group.addTask {
                try await UploadIdleTimer.wait(idle, since: { upload.lastActivity })
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                throw URLError(.timedOut, userInfo: [
                    NSLocalizedDescriptionKey: "The request body did not move, or no answer came, within its timeout.",
                ])
            }
            return response
        }
    }

    /// `timeout` seconds as a `Duration`, or `nil` for none (0, negative, infinite or NaN).
    static func duration(_ timeout: TimeInterval) -> Duration? {
        guard timeout.isFinite, timeout > 0 else { return nil }
        return .nanoseconds(Int64(min(timeout, 1e9) * 1e9))
    }

    /// The NIO deadline `timeout` seconds from now; none for a timeout that is not positive and finite.
    static func deadline(after timeout: TimeInterval) -> NIODeadline {
        guard let duration = duration(timeout) else { return .distantFuture }
        let (seconds, attoseconds) = duration.components
        return .now() + .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
#endif
