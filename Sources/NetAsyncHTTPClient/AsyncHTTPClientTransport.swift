#if AsyncHTTPClient
import AsyncHTTPClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// A transport on swift-server's AsyncHTTPClient (SwiftNIO): the engine for servers and for heavy concurrency on
/// Linux, where URLSession is several times slower, has no backpressure and truncates timeouts to whole seconds.
/// It needs neither FoundationNetworking nor libcurl.
///
/// It speaks NetKit's types and converts only at its edge: header fields go to SwiftNIO one by one (a repeated
/// field stays repeated, both ways, every `Set-Cookie` apart), failures become ``NetCore/TransportError``s of the
/// kind NetKit's retry rules read. It streams request bodies from memory, files and streams with the connection's
/// backpressure (`Content-Length` when the size is known, chunked otherwise) and reports their progress; it
/// returns at the response head and streams the body with backpressure too (a consumer that stops reading holds
/// the connection, and memory stays flat), or, for a caller that collects the body whole
/// (``NetCore/TransportRequest/wholeBody``), hands it over complete in one piece; it cancels the request when the
/// calling task is cancelled or the consumer drops the body; it hands every redirect back to the engine, which
/// decides each hop (``NetCore/RedirectPolicy``); it speaks HTTP/1.1, and HTTP/2 over TLS where the server offers it.
///
/// Content codings, as on every NetKit transport: a body in `gzip`, `x-gzip` or `deflate`, stacked or not, is
/// decoded whole (SwiftNIO decodes one coding, NetKit the others, each bounded by ``defaultDecompressionRatio``); a
/// body in any other coding (`br`, `zstd`, …) is refused with a ``NetCore/TransportError`` of kind
/// ``NetCore/TransportError/Kind/badResponse`` that is not transient. A client whose configuration disables
/// `decompression` gets every body as it was sent, `Content-Encoding` intact; a client passed in
/// (``init(client:)``) decodes what its own configuration says, and a body with stacked codings that it may have
/// decoded in part is refused.
///
/// Timeouts, to the millisecond: ``NetCore/TransportRequest/idleTimeout`` bounds the wait for the response head,
/// counted from the start for a request whose body is in memory, and from the last body byte handed over for a
/// streamed body (an idle timeout: a long upload that keeps moving never trips it); after the head it bounds each
/// wait for the next piece of the body. The client's read timeout (``defaultConfiguration``: 60 s) ends a body on
/// which nothing arrives as well — a consumer that reads nothing for that long stops the arrival too. NetKit's
/// whole-request `timeout` stays in charge above all of these.
///
/// ```swift
/// let transport = AsyncHTTPClientTransport()          // owns its client
/// let manager = NetworkManager(baseURL: api, transport: transport)
/// ```
///
/// Built only with the package trait `AsyncHTTPClient`.
public struct AsyncHTTPClientTransport: HTTPTransport, ReadsRequestBodiesOnOwnThreads {
    /// The client requests go through.
    public let client: HTTPClient
    /// Set when the transport created the client: the clients it made (this one, and one per proxy and HTTP
    /// version requests ask for), shut down when the last user is gone.
    let clients: ConnectionClients?
    /// The BoringSSL configurations of the TLS settings requests asked for, shared by the transport's copies.
    private let tlsConfigurations = TLSConfigurations()
    /// Whether the client decompresses bodies (its configuration's `decompression`); `nil` for a client passed in,
    /// whose configuration cannot be read.
    private let clientDecodes: Bool?

    /// The configuration of a client the transport creates: a 10 s connect timeout, a 60 s read timeout
    /// (URLSession's default idle timeout), gzip and deflate bodies decoded up to ``defaultDecompressionRatio`` times
    /// the bytes received (NetKit's response size limits apply to the decoded bytes), HTTP/2 where TLS negotiates it, no retry of refused connections inside the client
    /// (NetKit's `RetryPolicy` decides about retries), and no redirect followed inside the client (NetKit's engine
    /// decides each hop, ``NetCore/RedirectPolicy``).
    public static var defaultConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: HTTPClient.Configuration.Timeout(connect: .seconds(10), read: .seconds(60)),
            decompression: .enabled(limit: .ratio(defaultDecompressionRatio))
        )
        configuration.httpVersion = .automatic
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// 100: how many times the compressed bytes received a decoded body may grow to, by default.
    ///
    /// Decompression happens ahead of the consumer, a whole read of compressed bytes at a time, so without a bound a
    /// gzip bomb (a megabyte that inflates to a gigabyte) holds hundreds of megabytes before the first chunk is read.
    /// Text and JSON compress 3 to 20 times; a body that grows more fails with a `TransportError` of kind
    /// `badResponse` that is not transient. Pass a configuration with another `decompression` limit to allow more
    /// for the coding SwiftNIO decodes; the codings NetKit decodes after it (stacked codings, `x-gzip`) keep this
    /// ratio, as does URLSessionTransport for a body that declares its length.
    public static let defaultDecompressionRatio = ContentCoding.decompressionRatio

    /// Creates a transport with a client of its own, which it shuts down once the transport (every copy) and every
    /// response body it returned are gone, or when you call ``shutdown()``.
    ///
    /// The client never follows a redirect, whatever `configuration.redirectConfiguration` says: every `3xx` goes
    /// back to NetKit's engine, which decides each hop the same on every transport (``NetCore/RedirectPolicy``).
    public init(
        configuration: HTTPClient.Configuration = AsyncHTTPClientTransport.defaultConfiguration,
        eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup
    ) {
        var configuration = configuration
        configuration.redirectConfiguration = .disallow
        let clients = ConnectionClients(configuration: configuration, eventLoopGroup: eventLoopGroup)
        self.client = clients.base.client
        self.clients = clients
        self.clientDecodes = if case .disabled = configuration.decompression { false } else { true }
    }

    /// Creates a transport on your client, which keeps its configuration and which the transport never shuts down.
    ///
    /// Create the client with `redirectConfiguration: .disallow`: NetKit's engine decides every hop
    /// (``NetCore/RedirectPolicy``). A client that follows a redirect itself fails the request with
    /// ``NetCore/TransportError/Kind/tooManyRedirects`` and a detail that says so, since its hops would have skipped
    /// the engine's credential, cookie and cache rules.
    public init(client: HTTPClient) {
        self.client = client
        self.clients = nil
        self.clientDecodes = nil
    }

    /// Shuts the transport's own client down now, failing requests still running; does nothing for a client you
    /// passed in, or a second time. Optional: the client is shut down anyway when the transport goes away.
    public func shutdown() async throws {
        try await clients?.shutdown()
    }

    /// Sends `request`; returns when the response head has arrived, or, when the request's
    /// ``NetCore/TransportRequest/wholeBody`` is set, once the body is in (at most its limit + 1 bytes kept; a longer
    /// body is cut there and its transfer cancelled; a body that breaks is handed over with its head, failing when
    /// read).
    /// - Throws: `CancellationError` when the calling task is cancelled; ``NetCore/TransportError`` for transport
    ///   failures (``NetCore/TransportError/Kind/timedOut``, ``NetCore/TransportError/Kind/cannotConnect``,
    ///   ``NetCore/TransportError/Kind/connectionLost``, …, with AsyncHTTPClient's error as its `underlying`);
    ///   ``NetCore/NetworkError/uploadStreamConsumed`` for a one-shot body sent twice; the `UploadSourceError` of a
    ///   file or stream that broke its declared length.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        let head = request.head
        // Asked again here for a caller that bypasses the engine: nothing leaves with less than it asked for.
        if let connection = request.connection, let refusal = unsupportedSetting(in: connection, for: head) {
            throw refusal
        }
        let (client, owned) = try client(for: request.connection)
        var outgoing = HTTPClientRequest(url: HeadConversion.urlString(of: head))
        outgoing.method = HeadConversion.method(head.method)
        outgoing.headers = HeadConversion.headers(of: head.headerFields)
        if let connection = request.connection {
            outgoing.tlsConfiguration = try tlsConfigurations.configuration(for: connection.tls(for: head))
        }
        let upload = try Self.attachBody(
            request.body, progress: request.progress, onSent: request.onSent, to: &outgoing)
        // Counted from now for a body in memory; a streamed body's idle timer starts with the body instead.
        let deadline = upload == nil ? Self.deadline(after: request.idleTimeout) : .distantFuture

        let response: HTTPClientResponse
        do {
            response = try await execute(
                outgoing, on: client, deadline: deadline, idleTimeout: request.idleTimeout, upload: upload,
                authority: head.authority)
        } catch {
            // No head, so the transfer is over: the caller must find the body's files closed.
            upload?.close()
            if let uploadError = upload?.error { throw uploadError }
            throw TransportErrorTranslation.translate(
                error, phase: .beforeHead, host: HeadConversion.host(ofAuthority: head.authority),
                taskIsCancelled: Task.isCancelled
            )
        }
        if response.history.count > 1 {
            // A client passed in that follows redirects itself: its hops skipped the engine's rules. Said loudly.
            upload?.close()
            throw TransportError(
                .tooManyRedirects, host: HeadConversion.host(ofAuthority: head.authority),
                detail: "the HTTPClient given to AsyncHTTPClientTransport(client:) followed a redirect itself; "
                    + "create it with redirectConfiguration: .disallow so that NetKit decides each hop")
        }
        let headReceivedAt = ContinuousClock.now
        let protocolVersion = HTTPProtocolVersion(major: response.version.major, minor: response.version.minor)
        // AsyncHTTPClient's request API says nothing of its writes: the answer proves the head went out, and a body
        // in memory with it (written in one piece); a streamed body's pump tells its own end.
        if let upload {
            upload.tellHeadSent()
        } else if let onSent = request.onSent {
            onSent(.head)
            if let length = request.body?.length { onSent(.body(bytes: length)) }
        }
        let responseHead = HeadConversion.responseHead(status: response.status, headers: response.headers)
        func answer(_ body: ResponseBody) -> TransportResponse {
            var answer = TransportResponse(head: responseHead, body: body, headReceivedAt: headReceivedAt)
            answer.protocolVersion = protocolVersion
            return answer
        }
        let progress = request.progress
        let expectedLength = progress == nil ? nil : responseHead.declaredContentLength
        let coding = codingRoad(for: responseHead, headers: response.headers, method: head.method)
        if case .refuse(let reason) = coding {
            // Dropping the unread body cancels the transfer.
            upload?.close()
            throw TransportError.undecodableBody(host: HeadConversion.host(ofAuthority: head.authority), detail: reason)
        }

        if let limits = request.wholeBody {
            if limits.refusesAtHead(responseHead, method: head.method) {
                // The body cannot fit: the caller refuses the head, and dropping the body cancels the transfer.
                upload?.close()
                return answer(.empty)
            }
            let data: Data
            let limit = limits.limit(forStatus: responseHead.statusCode)
            do {
                if case .decode(let layers) = coding {
                    let chunks = ResponseChunks(
                        body: response.body, progress: progress, expectedLength: expectedLength,
                        idleTimeout: request.idleTimeout, authority: head.authority, keepAlive: owned)
                    let decoded = InflatingChunks(
                        base: ResponseBody(chunks), layers: layers,
                        host: HeadConversion.host(ofAuthority: head.authority))
                    // At most the limit + 1 bytes, as WholeBody keeps: dropping the rest cancels the transfer.
                    data = try await ResponseBody(decoded).collectPrefix(upTo: limit == .max ? limit : limit + 1).data
                } else {
                    data = try await WholeBody.collect(
                        response.body, limit: limit, progress: progress, expectedLength: expectedLength,
                        idleTimeout: request.idleTimeout
                    )
                }
            } catch {
                upload?.close()
                if let uploadError = upload?.error { throw uploadError }
                let failure = TransportErrorTranslation.translate(
                    error, phase: .body, host: HeadConversion.host(ofAuthority: head.authority),
                    taskIsCancelled: Task.isCancelled
                )
                if failure is CancellationError { throw failure }
                // The head came: it is the answer, with a body that fails where it broke, as on the streamed road
                // (the engine then sees a body cut short, not a request left unanswered that it might send again).
                return answer(ResponseBody(AsyncThrowingStream { $0.finish(throwing: failure) }))
            }
            upload?.close()
            return answer(ResponseBody(data: data))
        }

        let chunks = ResponseChunks(
            body: response.body, progress: progress, expectedLength: expectedLength, idleTimeout: request.idleTimeout,
            authority: head.authority, keepAlive: owned
        )
        // Dropping AsyncHTTPClient's body (or its iterator) early cancels the request; the upload, if the server
        // answered before reading all of it, is closed as well.
        var body = if let upload { ResponseBody(chunks, onAbandon: { upload.close() }) } else { ResponseBody(chunks) }
        if case .decode(let layers) = coding {
            body = ResponseBody(
                InflatingChunks(base: body, layers: layers, host: HeadConversion.host(ofAuthority: head.authority)))
        }
        return answer(body)
    }

    /// What to do with the response's content codings (see ``CodingRoad``): nothing for a body without one.
    private func codingRoad(for head: NetCore.HTTPResponseHead, headers: HTTPHeaders, method: NetCore.HTTPRequestMethod)
        -> CodingRoad
    {
        let plan = ContentCoding(head: head, method: method)
        guard plan != .identity else { return .asItComes }
        let first = headers[canonicalForm: "Content-Encoding"].first.map(String.init)
        return CodingRoad(plan: plan, firstCoding: first, clientDecodes: clientDecodes)
    }

    /// Sets `outgoing`'s body; returns the pump of a body streamed piece by piece.
    ///
    /// A body in memory goes out in one write unless someone listens to its progress, which needs pieces.
    private static func attachBody(
        _ body: UploadSource?,
        progress: NetworkProgress?,
        onSent: (@Sendable (TransportRequest.SentPart) -> Void)?,
        to outgoing: inout HTTPClientRequest
    ) throws(NetworkError) -> UploadPump? {
        guard let body else { return nil }
        if let data = body.inMemoryData, progress == nil || data.isEmpty {
            outgoing.body = .bytes(ByteBuffer(data: data))
            return nil
        }
        let pump = try UploadPump.make(for: body, progress: progress, onSent: onSent)
        outgoing.body = .stream(UploadPieces(pump: pump), length: pump.length.map { .known($0) } ?? .unknown)
        return pump
    }

    /// Runs a request until its head arrives: by `deadline` for a body in memory; for a streamed body, failing with
    /// ``NetCore/TransportError/Kind/timedOut`` once `idleTimeout` passes without the body moving (or, after the
    /// last byte, without an answer).
    private func execute(
        _ request: HTTPClientRequest,
        on client: HTTPClient,
        deadline: NIODeadline,
        idleTimeout: Duration?,
        upload: UploadPump?,
        authority: String
    ) async throws -> HTTPClientResponse {
        guard let upload, let idle = idleTimeout, idle > .zero else {
            return try await client.execute(request, deadline: deadline)
        }
        return try await withThrowingTaskGroup(of: HTTPClientResponse?.self) { group in
            group.addTask { try await client.execute(request, deadline: .distantFuture) }
            group.addTask {
                try await UploadIdleTimer.wait(idle, since: { upload.lastActivity })
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                throw TransportError(
                    .timedOut,
                    host: HeadConversion.host(ofAuthority: authority),
                    detail: "the request body did not move, or no answer came, within the idle timeout"
                )
            }
            return response
        }
    }

    /// The NIO deadline `timeout` from now; none for a timeout that is `nil`, zero or negative.
    static func deadline(after timeout: Duration?) -> NIODeadline {
        guard let timeout, timeout > .zero else { return .distantFuture }
        let (seconds, attoseconds) = timeout.components
        // Beyond about 292 years the nanoseconds would overflow: that is no deadline at all.
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return .distantFuture }
        return .now() + .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
#endif
