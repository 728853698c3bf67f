#if OpenAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import NetCore
import OpenAPIRuntime

/// A swift-openapi-runtime `ClientTransport` that sends a generated client's requests down NetKit's road, on any
/// NetKit transport: the engine's plugins, the credential with its single-flight renewal on 401, retries that
/// honour `Retry-After` and idempotency, the timeout, cookies, logging with secrets redacted.
///
/// ```swift
/// import NetAsyncHTTPClient   // or NetTransport's URLSessionTransport
/// import NetAuth
/// import NetCore
/// import NetOpenAPI
///
/// var transport = NetKitClientTransport(
///     executor: RequestExecutor(transport: AsyncHTTPClientTransport(), plugins: [RequestIDPlugin()]),
///     credentials: AuthenticatorCredentials(authenticator: OAuth(), credential: saved)
/// )
/// transport.retryPolicy = RetryPolicy(maxRetryCount: 2)
/// let client = Client(serverURL: try Servers.Server1.url(), transport: transport)
/// ```
///
/// Bodies stream both ways. A response body is handed to the client unread, as it arrives, whatever its status,
/// so the client decodes the statuses its document names. It is bounded like the engine's other roads: at most the
/// executor's `responseLimit` bytes (a head that declares more fails with `NetworkError.responseTooLarge` before any
/// body byte is read, and a body that brings more ends with that error, its transfer stopped), read within
/// ``timeout`` and the request's idle timeout. A request body the client built in memory (an encoded
/// JSON value: one that can be iterated more than once, of a known length up to ``replayableBodyLimit``) is
/// gathered first, so that a retry or the resend after a renewal can send it again. Any other body (a multipart
/// form, a stream) goes one of two ways, by what the transport can do:
/// - on a transport that reads bodies on threads of its own (`AsyncHTTPClientTransport`), it is read as it is sent,
///   in bounded memory, and sent once: such a request is neither retried nor renewed, and a 401 reaches the client;
/// - on URLSession, whose reads would stall every session of the process while the client produced the body, it is
///   gathered before sending, in memory up to ``replayableBodyLimit`` and in a temporary file (deleted when the
///   call returns) beyond it, so memory stays bounded; gathered, it is retried and renewed like any other.
///
/// Each request carries its operation's `operationId` as ``NetCore/TransportRequest/operationID``, for plugins,
/// logs, metrics and traces.
public struct NetKitClientTransport: ClientTransport {
    /// The engine requests go through: its transport, plugins, timeout, retry policy and cookie jar.
    public var executor: RequestExecutor
    /// The credential put on every request and renewed (once, for every request that needs it) after a 401.
    public var credentials: any CredentialProvider
    /// The retries of transient failures; `nil` (the default): the executor's `defaultRetryPolicy`, none when it
    /// has none.
    public var retryPolicy: RetryPolicy?
    /// Bounds each request from the first attempt to the last byte of its response body, retries and renewal
    /// included; `nil` (the default): the executor's `defaultTimeout`.
    public var timeout: Duration?
    /// Operations (by `operationId`) that may be repeated although their method is not idempotent: `POST`s the
    /// API declares safe to retry. A request with an `Idempotency-Key` field may be repeated too.
    public var idempotentOperations: Set<String>
    /// The largest in-memory request body gathered so that it can be sent again; 1 MiB by default.
    public var replayableBodyLimit: Int
    /// Where a body gathered past ``replayableBodyLimit`` is written (the system's temporary directory; a test
    /// gives one of its own, to watch it).
    package var temporaryDirectory: URL

    /// Creates a transport over `executor`.
    /// - Parameters:
    ///   - executor: Where requests go, with the plugins and settings every request shares.
    ///   - credentials: The credential and its renewal; `nil` (the default): none is added, and a 401 reaches
    ///     the client.
    public init(executor: RequestExecutor, credentials: (any CredentialProvider)? = nil) {
        self.executor = executor
        self.credentials = credentials ?? NoCredentials()
        self.retryPolicy = nil
        self.timeout = nil
        self.idempotentOperations = []
        self.replayableBodyLimit = 1 << 20
        self.temporaryDirectory = FileManager.default.temporaryDirectory
    }

    /// Sends a generated client's request and returns the response with its body unread.
    /// - Throws: ``OpenAPITransportError`` for a request that cannot be sent (before anything is), or what the
    ///   road ends with: `TransportError`, a renewal's error, a plugin's error, `CancellationError`.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws
        -> (HTTPResponse, HTTPBody?)
    {
        var outgoing = TransportRequest(head: try HeadConversion.head(of: request, baseURL: baseURL))
        outgoing.operationID = operationID
        var gathered: GatheredBody?
        defer { gathered?.remove() }
        if let body {
            if body.iterationBehavior == .multiple, case .known(let length) = body.length, length <= replayableBodyLimit
            {
                outgoing.body = UploadSource(data: try await Data(collecting: body, upTo: Int(length)))
            } else if executor.transport is any ReadsRequestBodiesOnOwnThreads {
                outgoing.body = Self.streamed(body, declaredLength: HeadConversion.declaredLength(of: request))
            } else {
                gathered = try await GatheredBody.gather(
                    body, memoryLimit: replayableBodyLimit, directory: temporaryDirectory)
                outgoing.body = gathered?.source
            }
        }
        var options = RequestExecutor.ForwardingOptions()
        options.credentials = credentials
        options.retryPolicy = retryPolicy
        options.timeout = timeout
        options.isIdempotent = idempotentOperations.contains(operationID)
        options.baseURL = baseURL
        let (response, _) = try await executor.forward(outgoing, options: options)
        guard (0...999).contains(response.statusCode) else {
            throw OpenAPITransportError.invalidStatus(response.statusCode)
        }
        return (HeadConversion.response(of: response.head), Self.body(of: response, for: request.method))
    }

    /// A body read as the transport sends it, of the length it declares (or the request's `Content-Length`).
    private static func streamed(_ body: HTTPBody, declaredLength: Int64?) -> UploadSource {
        let length: Int64? =
            switch body.length {
            case .known(let length): length
            case .unknown: declaredLength
            }
        return UploadSource(stream: HTTPBodyInputStream(body: body), length: length)
    }

    /// The response body as the client reads it: `nil` for a response that has none (to `HEAD`, 204, 304),
    /// otherwise the transport's chunks as they arrive.
    private static func body(of response: TransportResponse, for method: HTTPRequest.Method) -> HTTPBody? {
        if method == .head || response.statusCode == 204 || response.statusCode == 304 { return nil }
        let length: HTTPBody.Length = response.declaredLength.map { .known($0) } ?? .unknown
        return HTTPBody(response.body, length: length, iterationBehavior: .single)
    }
}
#endif
