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
    /// The most bytes of an error body read into memory (EKNetwork's 1 MiB by default); a longer one is cut.
    public var errorPayloadLimit: Int
    /// The largest successful body read into memory (64 MiB by default); a longer one fails the request.
    public var responseLimit: Int
    /// Requests wait here, before their token is read, while the line is held.
    public var line: HoldTheLine?

    /// 1 MiB: the default of ``errorPayloadLimit``.
    public static let defaultErrorPayloadLimit = 1 << 20
    /// 64 MiB: the default of ``responseLimit``.
    public static let defaultResponseLimit = 64 << 20

    /// Creates an engine.
    public init(
        transport: any HTTPTransport,
        builder: RequestBuilder = RequestBuilder(),
        responseDecoderProvider: (@Sendable () -> JSONDecoder)? = nil,
        logger: NetworkLogger = .disabled,
        errorPayloadLimit: Int = RequestExecutor.defaultErrorPayloadLimit,
        responseLimit: Int = RequestExecutor.defaultResponseLimit,
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
    ///   - accessToken: Read before every attempt; a non-empty token is sent as `Authorization: Bearer` unless
    ///     the request sets its own `Authorization` header.
    ///   - credentials: Refreshes the credential on 401 (once per request), when the request allows retries.
    ///
    /// Runs on the caller's actor between network waits, so `accessToken` is called where it was formed.
    /// A failed request is logged at `error` level (cancellation at `notice`), with secrets redacted.
    nonisolated(nonsending) public func send<Request: NetworkRequest>(
        _ request: Request,
        baseURL: URL,
        accessToken: (() -> String?)? = nil,
        credentials: (any CredentialRecovery)? = nil
    ) async throws -> Request.Response {
        let prepared = try builder.makeRequest(request, baseURL: baseURL)
        do {
            let value = try await attempts(request, prepared, accessToken: accessToken, credentials: credentials)
            prepared.progress?.markFinished()
            return value
        } catch {
            let cancelled = error is CancellationError || Task.isCancelled
            prepared.progress?.markEnded(cancelled ? .cancelled : .failed)
            if cancelled {
                logger.log(.notice, "\(prepared.method) \(LogRedaction.url(prepared.url)) cancelled")
                throw CancellationError()
            }
            logger.log(.error, "\(prepared.method) \(LogRedaction.url(prepared.url)) failed: \(LogRedaction.describe(error))")
            throw error
        }
    }

    nonisolated(nonsending) private func attempts<Request: NetworkRequest>(
        _ request: Request,
        _ prepared: TransportRequest,
        accessToken: (() -> String?)?,
        credentials: (any CredentialRecovery)?
    ) async throws -> Request.Response {
        let policy = request.allowsRetry && prepared.payload.isReplayable ? request.retryPolicy : RetryPolicy()
        var retry = 0
        while true {
            do {
                let response = try await authorizedResponse(
                    prepared, allowsRefresh: request.allowsRetry, accessToken: accessToken, credentials: credentials
                )
                let data = try await validatedBody(of: response, errorDecoder: request.errorDecoder)
                return try decode(request, data: data, head: response.head)
            } catch let failure as RefreshFailure {
                throw failure.underlying
            } catch {
                if Task.isCancelled { throw CancellationError() }
                retry += 1
                guard let wait = policy.delay(beforeRetry: retry, after: error) else { throw error }
                logger.log(.info, "\(prepared.method) \(LogRedaction.url(prepared.url)): retry \(retry) in \(wait) s after \(LogRedaction.describe(error))")
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
        let ownAuthorization = prepared.value(forHeader: "Authorization") != nil
        while true {
            try Task.checkCancellation()
            try await line?.waitUntilOpen()
            let generation = await credentials?.generation() ?? 0
            var outgoing = prepared
            if !ownAuthorization, let token = accessToken?(), !token.isEmpty {
                try outgoing.setHeader("Authorization", "Bearer \(token)")
            }
            let started = logger.isEnabled(.debug) ? ContinuousClock.now : nil
            if started != nil {
                logger.log(.debug, "→ \(outgoing.method) \(LogRedaction.url(outgoing.url))")
            }
            let response = try await transport.send(outgoing)
            if let started {
                logger.log(.debug, "← \(outgoing.method) \(LogRedaction.url(outgoing.url)) \(response.statusCode) in \(ContinuousClock.now - started)")
            }
            guard response.statusCode == 401, allowsRefresh, !refreshed, let credentials, prepared.payload.isReplayable
            else { return response }
            do {
                try await credentials.recover(fromUnauthorizedAt: generation)
            } catch is CancellationError {
                throw CancellationError()
            } catch NetworkError.unauthorized {
                // The refresher's own request got 401: it must not wait for the refresh it is part of.
                return response
            } catch {
                logger.log(.info, "\(outgoing.method) \(LogRedaction.url(outgoing.url)): 401, token refresh failed: \(LogRedaction.describe(error))")
                throw RefreshFailure(underlying: error)
            }
            refreshed = true
            logger.log(.info, "\(outgoing.method) \(LogRedaction.url(outgoing.url)): 401, token refreshed, sending again")
        }
    }

    /// Reads the body of a successful response, or turns a failed one into its error.
    /// - Throws: ``NetworkError/unauthorized`` for 401, the request's `errorDecoder` result or ``HTTPError``
    ///   for other non-2xx statuses (an error body longer than ``errorPayloadLimit`` is cut there and the
    ///   `HTTPError` marked truncated: its status and headers stay), ``NetworkError/responseTooLarge(limitBytes:)``
    ///   for a successful body longer than ``responseLimit``.
    nonisolated(nonsending) public func validatedBody(of response: TransportResponse, errorDecoder: ((Data) -> (any Error)?)?) async throws -> Data {
        let status = response.statusCode
        if status == 401 { throw NetworkError.unauthorized }
        guard (200..<300).contains(status) else {
            let (data, truncated) = try await response.body.collectPrefix(upTo: errorPayloadLimit)
            if let decoded = errorDecoder?(data) { throw decoded }
            throw HTTPError(statusCode: status, data: data, headers: response.head.stringHeaders, isTruncated: truncated)
        }
        return try await response.body.collect(upTo: responseLimit, expectedLength: response.declaredLength)
    }

    private func decode<Request: NetworkRequest>(_ request: Request, data: Data, head: HTTPURLResponse) throws -> Request.Response {
        if request.allowsResponseDecoderOverride, let provider = responseDecoderProvider {
            return try request.decodeResponse(data: data, response: head, decoder: provider())
        }
        return try request.decodeResponse(data: data, response: head)
    }
}

/// A refresh that failed: delivered to the caller as it is, never retried by the retry policy.
private struct RefreshFailure: Error {
    let underlying: any Error
}
