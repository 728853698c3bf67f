#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RequestExecutor {
    /// What the road of a ready-made request needs besides the request: what an ``Endpoint`` would say.
    package struct ForwardingOptions: Sendable {
        /// The credential put on every attempt and renewed once on a rejection.
        package var credentials: any CredentialProvider = NoCredentials()
        /// Bounds the whole exchange, retries, renewal and the reading of the body included; `nil`: the engine's
        /// ``RequestExecutor/Configuration/defaultTimeout``.
        package var timeout: Duration?
        /// The retries of transient failures; `nil`: the engine's ``RequestExecutor/Configuration/defaultRetryPolicy``.
        package var retryPolicy: RetryPolicy?
        /// Whether the request may be repeated although its method is not idempotent (a `POST` the API declares
        /// safe to repeat).
        package var isIdempotent = false
        /// The base URL whose origin the engine's credentials are for (``RequestExecutor/Configuration/credentialScope``); `nil`:
        /// the request's own origin.
        package var baseURL: URL?

        package init() {}
    }

    /// Sends a request that is already built (by a bridge such as NetOpenAPI's transport) down the one road (`takeRoad`), and
    /// returns its response once the head has arrived, the body unread, whatever its status.
    ///
    /// The same stages as ``streamingResponse(for:baseURL:credentials:)`` and a retry policy: the engine's plugins,
    /// the credential (renewed once on a rejection), retries of transient failures and statuses (`Retry-After`
    /// honoured, a replayable body and an idempotent method or ``ForwardingOptions/isIdempotent`` required), the
    /// timeout, cookies. A status that is not 2xx still takes the road's decisions (renewal on 401, retries on 503),
    /// then the last response is handed over rather than thrown: the caller decodes the statuses it knows. Plugins'
    /// `didFinish` sees it as a success.
    ///
    /// The body, whatever the status, is bounded like `stream()`'s: at most ``Configuration/responseLimit`` bytes (a head that
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
        if request.idleTimeout == nil { request.idleTimeout = configuration.builder.idleTimeout }
        let plugins = pluginList(adding: [])
        declareCredentials(in: &request, plugins: plugins)
        request.connection = connectionSettings(request.connection)
        let mayRepeat =
            request.isReplayable
            && RetryPolicy.allowsRepeating(
                method: request.method,
                declaredIdempotent: options.isIdempotent,
                hasIdempotencyKey: request.value(forHeader: "Idempotency-Key") != nil
            )
        let scope = configuration.credentialScope
        let plan = RoadPlan(
            plugins: plugins,
            timeout: options.timeout ?? configuration.defaultTimeout,
            retryPolicy: mayRepeat ? options.retryPolicy ?? configuration.defaultRetryPolicy : nil,
            resendsUnanswered: mayRepeat,
            credentials: options.credentials,
            allowsRenewal: true,
            errorDecoder: CallerIsolated<((Data) -> (any Error)?)?>(nil),
            errorModel: nil,
            body: .handOver(limit: configuration.responseLimit),
            // The request comes built by its caller for its own target: every field of it is its own.
            credentialGuard: scope.allowsAnyOrigin
                ? .open
                : CredentialGuard(
                    for: request, scope: scope, baseURL: options.baseURL, isAtBase: options.baseURL == nil,
                    ownFieldNames: { _ in true })
        )
        var metrics: RequestMetrics?
        let response = try await takeRoad(request, plan: plan, measures: true, metrics: &metrics) { response, _ in
            response
        }
        return (response, metrics!)
    }
}
