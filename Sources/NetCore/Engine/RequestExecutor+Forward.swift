#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RequestExecutor {
    /// What the road of a ready-made request needs besides the request: what an ``Endpoint`` would say.
    package struct ForwardingOptions: Sendable {
        /// The credential put on every attempt and renewed once on a rejection.
        package var credentials: any CredentialProvider = BearerTokenCredentials.none
        /// Bounds the whole exchange, retries, renewal and the reading of the body included; `nil`: the engine's
        /// ``RequestExecutor/defaultTimeout``.
        package var timeout: Duration?
        /// The retries of transient failures; `nil`: the engine's ``RequestExecutor/defaultRetryPolicy``.
        package var retryPolicy: RetryPolicy?
        /// Whether the request may be repeated although its method is not idempotent (a `POST` the API declares
        /// safe to repeat).
        package var isIdempotent = false
        /// The base URL whose origin the engine's credentials are for (``RequestExecutor/credentialScope``); `nil`:
        /// the request's own origin.
        package var baseURL: URL?

        package init() {}
    }

    /// Sends a request that is already built (by a bridge such as NetOpenAPI's transport) down the one road, and
    /// returns its response once the head has arrived, the body unread, whatever its status.
    ///
    /// The same stages as ``streamingResponse(for:baseURL:credentials:)`` and a retry policy: the engine's plugins,
    /// the credential (renewed once on a rejection), retries of transient failures and statuses (`Retry-After`
    /// honoured, a replayable body and an idempotent method or ``ForwardingOptions/isIdempotent`` required), the
    /// timeout, cookies. A status that is not 2xx still takes the road's decisions (renewal on 401, retries on 503),
    /// then the last response is handed over rather than thrown: the caller decodes the statuses it knows. Plugins'
    /// `didFinish` sees it as a success.
    ///
    /// The body, whatever the status, is bounded like `stream()`'s: at most ``responseLimit`` bytes (a head that
    /// declares more fails with ``NetworkError/responseTooLarge(limitBytes:)`` at once, a body that brings more ends
    /// with it and its transfer stops), within the request's timeout (the whole exchange) and idle timeout (each
    /// wait for a byte; the builder's ``RequestBuilder/idleTimeout`` when the request names none), past which it
    /// ends with ``TransportError/Kind/timedOut``.
    nonisolated(nonsending) package func forward(_ request: TransportRequest, options: ForwardingOptions) async throws
        -> (response: TransportResponse, metrics: RequestMetrics)
    {
        var request = request
        request.progress = nil
        request.wholeBody = nil
        // A ready-made request names no idle timeout of its own unless a bridge set one: the engine's applies.
        if request.idleTimeout == nil { request.idleTimeout = builder.idleTimeout }
        let state = RequestState(isStreaming: true)
        let plugins = pluginList(adding: [])
        declareCredentials(in: &request, plugins: plugins)
        let policy = options.retryPolicy ?? defaultRetryPolicy
        let mayRepeat =
            request.isReplayable
            && RetryPolicy.allowsRepeating(
                method: request.method,
                declaredIdempotent: options.isIdempotent,
                hasIdempotencyKey: request.value(forHeader: "Idempotency-Key") != nil
            )
        let timeout = options.timeout ?? defaultTimeout
        let road = stages(
            state: state,
            plugins: plugins,
            timeout: timeout,
            retryPolicy: mayRepeat ? policy : nil,
            credentials: options.credentials,
            allowsRenewal: true,
            errorDecoder: CallerIsolated<((Data) -> (any Error)?)?>(nil),
            errorModel: nil,
            body: .handOver(limit: responseLimit),
            // The request comes built by its caller for its own target: every field of it is its own.
            credentialGuard: credentialScope.allowsAnyOrigin
                ? .open
                : CredentialGuard(
                    for: request, scope: credentialScope, baseURL: options.baseURL,
                    isAtBase: options.baseURL == nil, ownFieldNames: { _ in true })
        )
        let exchange: Exchange
        do {
            exchange = try await road.run(request)
        } catch let failure as ResponseFailure where failure.isStatusOnly && !Task.isCancelled {
            exchange = failure.exchange
        } catch {
            throw await fail(request, with: error, state: state, plugins: plugins)
        }
        let metrics = state.finish()
        for plugin in plugins.taking(.didSucceed) {
            await plugin.didFinish(
                exchange.request, result: .success(exchange.received), metrics: metrics, context: state.endContext)
        }
        // The body is read after this returns: the limit, the request's timeout and its idle timeout go with it.
        var response = exchange.response
        response.body = response.body.limited(to: responseLimit).bounded(
            by: BodyTimeouts(
                deadline: timeout.map { state.start + $0 }, idle: exchange.request.idleTimeout,
                host: exchange.request.head.host))
        return (response, metrics)
    }
}
