import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transport-agnostic engine: build, authorize, send through the middleware chain, refresh on 401,
/// validate the status, retry transient failures, decode.
///
/// `NetworkManager` is a thin facade over it; it can also be used on its own with any ``HTTPTransport``.
public struct RequestExecutor: Sendable {
    /// Where requests go: usually a ``MiddlewareChain`` around a URLSession transport.
    public var transport: any HTTPTransport
    /// The request builder.
    public var builder: RequestBuilder
    /// A decoder that replaces each request's `jsonDecoder` when the request allows it.
    public var responseDecoderProvider: (@Sendable () -> JSONDecoder)?
    /// Where the engine reports what it does.
    public var logger: NetworkLogger
    /// The largest error payload read into memory (EKNetwork's 1 MiB cap).
    public var errorPayloadLimit: Int
    /// The largest successful body read into memory.
    public var responseLimit: Int
    /// Requests wait here, before their token is read, while the line is held.
    public var line: HoldTheLine?

    /// Creates an engine.
    public init(
        transport: any HTTPTransport,
        builder: RequestBuilder = RequestBuilder(),
        responseDecoderProvider: (@Sendable () -> JSONDecoder)? = nil,
        logger: NetworkLogger = .disabled,
        errorPayloadLimit: Int = 1 << 20,
        responseLimit: Int = Int.max,
        line: HoldTheLine? = nil
    ) {
        self.line = line
        self.transport = transport
        self.builder = builder
        self.responseDecoderProvider = responseDecoderProvider
        self.logger = logger
        self.errorPayloadLimit = errorPayloadLimit
        self.responseLimit = responseLimit
    }

    /// Sends `request` and decodes its response.
    /// - Parameters:
    ///   - baseURL: The URL the request's path is appended to.
    ///   - accessToken: Read before every attempt; a non-empty token is sent as `Authorization: Bearer`.
    ///   - credentials: Refreshes the credential on 401 (once per request), when the request allows retries.
    ///
    /// Runs on the caller's actor between network waits, so `accessToken` is called where it was formed.
    nonisolated(nonsending) public func send<Request: NetworkRequest>(
        _ request: Request,
        baseURL: URL,
        accessToken: (() -> String?)? = nil,
        credentials: (any CredentialRecovery)? = nil
    ) async throws -> Request.Response {
        let prepared = try builder.makeRequest(request, baseURL: baseURL)
        let policy = request.allowsRetry && prepared.payload.isReplayable ? request.retryPolicy : RetryPolicy()
        var retry = 0
        while true {
            do {
                let response = try await authorizedResponse(
                    prepared, allowsRefresh: request.allowsRetry, accessToken: accessToken, credentials: credentials
                )
                let data = try await validatedBody(of: response, errorDecoder: request.errorDecoder)
                let value = try decode(request, data: data, head: response.head)
                prepared.progress?.markFinished()
                return value
            } catch let failure as RefreshFailure {
                logger.log(.notice, "\(prepared.method) \(Self.loggable(prepared.url)): token refresh failed")
                throw failure.underlying
            } catch {
                if Task.isCancelled { throw CancellationError() }
                retry += 1
                guard let wait = policy.delay(beforeRetry: retry, after: error) else { throw error }
                logger.log(.info, "\(prepared.method) \(Self.loggable(prepared.url)): retry \(retry) in \(wait) s after \(error)")
                try await Task.sleep(for: .seconds(wait))
            }
        }
    }

    /// Sends `prepared` with the current token and, on a 401, refreshes once and sends it again.
    ///
    /// Returns the response with its body unread: `send` collects it, a stream hands it on. This is the one
    /// road both take.
    nonisolated(nonsending) public func authorizedResponse(
        _ prepared: TransportRequest,
        allowsRefresh: Bool,
        accessToken: (() -> String?)?,
        credentials: (any CredentialRecovery)?
    ) async throws -> TransportResponse {
        var refreshed = false
        while true {
            try Task.checkCancellation()
            try await line?.waitUntilOpen()
            let generation = await credentials?.generation() ?? 0
            var outgoing = prepared
            if let token = accessToken?(), !token.isEmpty {
                try outgoing.setHeader("Authorization", "Bearer \(token)")
            }
            let started = logger.isEnabled(.debug) ? ContinuousClock.now : nil
            let response = try await transport.send(outgoing)
            if let started {
                logger.log(.debug, "\(outgoing.method) \(Self.loggable(outgoing.url)) → \(response.statusCode) in \(ContinuousClock.now - started)")
            }
            guard response.statusCode == 401, allowsRefresh, !refreshed, let credentials,
                  prepared.payload.isReplayable, !CredentialRecoveryScope.isRefreshing
            else { return response }
            do {
                try await credentials.recover(fromUnauthorizedAt: generation)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw RefreshFailure(underlying: error)
            }
            refreshed = true
            logger.log(.info, "\(outgoing.method) \(Self.loggable(outgoing.url)): 401, token refreshed, sending again")
        }
    }

    /// Reads the body of a successful response, or turns a failed one into its error.
    /// - Throws: ``NetworkError/unauthorized`` for 401, the request's `errorDecoder` result or ``HTTPError``
    ///   for other non-2xx statuses, ``NetworkError/responseTooLarge(limitBytes:)`` past the limits.
    nonisolated(nonsending) public func validatedBody(of response: TransportResponse, errorDecoder: ((Data) -> (any Error)?)?) async throws -> Data {
        let status = response.statusCode
        if status == 401 { throw NetworkError.unauthorized }
        guard (200..<300).contains(status) else {
            let data = try await response.body.collect(upTo: errorPayloadLimit)
            if let decoded = errorDecoder?(data) { throw decoded }
            throw HTTPError(statusCode: status, data: data, headers: response.head.stringHeaders)
        }
        return try await response.body.collect(upTo: responseLimit, expectedLength: response.declaredLength)
    }

    private func decode<Request: NetworkRequest>(_ request: Request, data: Data, head: HTTPURLResponse) throws -> Request.Response {
        if request.allowsResponseDecoderOverride, let provider = responseDecoderProvider {
            return try request.decodeResponse(data: data, response: head, decoder: provider())
        }
        return try request.decodeResponse(data: data, response: head)
    }

    /// Scheme, host and path only: queries may carry tokens.
    private static func loggable(_ url: URL?) -> String {
        guard let url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "-" }
        if components.percentEncodedQuery != nil { components.percentEncodedQuery = "…" }
        components.user = nil
        components.password = nil
        return components.string ?? "-"
    }
}

/// A refresh that failed: delivered to the caller as it is, never retried by the retry policy.
private struct RefreshFailure: Error {
    let underlying: any Error
}
