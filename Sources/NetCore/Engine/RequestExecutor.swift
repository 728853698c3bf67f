#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The transport-agnostic engine: build → one chain of stages → decode.
///
/// ```
/// Endpoint ─build─▶ deadline ▶ prepare ▶ retry ▶ held line ▶ redirects ▶ credential ▶ status check ▶ plugins ▶ credential scope ▶ cookies ▶ cache ▶ coalesce ▶ body ▶ transport
/// ```
///
/// Every request takes the same road: `send` collects and decodes the body, `stream` (NetStreaming) hands it
/// over unread, and both run the same plugins. `NetworkManager` is a facade that assembles the default stack; the
/// engine can be used on its own with any ``HTTPTransport``:
///
/// ```swift
/// let executor = RequestExecutor(transport: URLSessionTransport())   // or AsyncHTTPClientTransport(), a stub…
/// let user = try await executor.send(GetUser(id: 1), baseURL: URL(string: "https://api.example.com")!)
/// ```
public struct RequestExecutor: Sendable {
    /// Where requests go.
    public var transport: any HTTPTransport
    /// The request builder.
    public var builder: RequestBuilder
    /// A decoder that replaces each request's `jsonDecoder` when the request allows it.
    public var responseDecoderProvider: (@Sendable () -> JSONDecoder)?
    /// Plugins that take part in every request, before the request's own.
    public var plugins: [any Plugin] {
        didSet { pluginList = PluginList(ordered: Self.ordered(plugins, [])) }
    }
    /// ``plugins`` in order with their hooks, worked out once rather than per request.
    private var pluginList: PluginList
    /// The most bytes of an error body read into memory (EKNetwork's 1 MiB by default); a longer one is cut.
    public var errorPayloadLimit: Int
    /// The largest successful body read into memory (64 MiB by default); a longer one fails the request.
    public var responseLimit: Int
    /// Requests wait here, before their credential is read, while the line is held.
    public var line: HoldTheLine?
    /// The timeout of requests that name none (`nil`: none).
    public var defaultTimeout: Duration?
    /// The clock retry waits are slept on (a test can pass one that does not sleep).
    public var clock: any Clock<Duration>
    /// A number in `0..<1` for each jittered retry wait (a test can pass a fixed one).
    public var randomUnit: @Sendable () -> Double
    /// Answers and revalidates `send`'s GET requests from memory (RFC 9111, see ``ResponseCache``), and forgets what a
    /// successful `POST`, `PUT`, `PATCH` or `DELETE` changed, whichever way it was sent; `nil` (the default): no cache.
    public var responseCache: ResponseCache?
    /// Stores every response's `Set-Cookie` and sends `Cookie` on later requests (RFC 6265); `nil` (the default):
    /// no cookies are kept.
    public var cookieJar: CookieJar?
    /// Whether identical GET and HEAD requests of `send` in flight at once share one network call. Off by default.
    ///
    /// Identical: the same method, URL and header fields as they go out (the credential and cookies included), through
    /// the same transport with the same cookie jar, so callers with different tokens never share. Correlation fields
    /// (a request ID, trace context: ``TransportRequest/markCorrelationHeader(_:)``) do not count: the call goes out
    /// with the values of the caller that started it, and each caller's plugins are still given its own request. Each
    /// caller decodes the shared response itself; a caller that is cancelled gets `CancellationError` at once while
    /// the others go on, and the call is cancelled only when every caller has been. Copies of this engine share the
    /// calls in flight (those over another transport never share a call); turning it off and on again starts afresh.
    public var coalescesIdenticalRequests: Bool {
        get { coalescer != nil }
        set { if newValue != (coalescer != nil) { coalescer = newValue ? RequestCoalescer() : nil } }
    }
    /// The calls in flight that identical requests share, when ``coalescesIdenticalRequests`` is on.
    package private(set) var coalescer: RequestCoalescer?
    /// The type of the error object the server sends with a failure, for requests that name no `errorModel` of
    /// their own: a non-2xx body that decodes as it throws ``ServerError``; `nil` (the default): none.
    public var errorModel: (any (Decodable & Error).Type)?
    /// Whether every request's 2xx body is first tried as its error model (the request's or ``errorModel``), for
    /// servers that answer 200 with an error object. A request can ask for it alone with its own
    /// `decodesErrorModelOnSuccess`. Off by default.
    public var decodesErrorModelOnSuccess = false
    /// The encoder of JSON bodies for requests that keep ``Endpoint``'s default `jsonEncoder`; `nil` (the
    /// default): a plain `JSONEncoder()`. A request that implements `jsonEncoder` keeps its own.
    public var defaultEncoder: JSONEncoder?
    /// The decoder of JSON responses for requests that keep ``Endpoint``'s default `jsonDecoder`; `nil` (the
    /// default): a plain `JSONDecoder()`. A request that implements `jsonDecoder` keeps its own, and
    /// ``responseDecoderProvider`` still comes first for requests that allow it.
    public var defaultDecoder: JSONDecoder?
    /// The retry policy of requests that keep ``Endpoint``'s default `retryPolicy`; `nil` (the default): no
    /// retries. A request that implements `retryPolicy` keeps its own (`RetryPolicy()` included).
    public var defaultRetryPolicy: RetryPolicy?
    /// Header fields and query items of your own that carry a credential (an API key in ``RequestBuilder/defaultHeaders``,
    /// a signature in the query), besides ``CredentialFields/standard`` and what plugins declare: they go only where
    /// ``credentialScope`` allows, never across a redirect to another origin, and logs hide them. None by default.
    public var credentialFields = CredentialFields.none
    /// The origins requests may carry the engine's credentials to; by default the base URL's alone (see
    /// ``CredentialScope``).
    public var credentialScope = CredentialScope.baseURLOrigin
    /// How redirects are followed: each hop decided by the engine, the same on every transport (see
    /// ``RedirectPolicy``). Up to 10 hops, never `https` to `http`, nothing but ``RedirectPolicy/crossOriginFields``
    /// to another origin, by default.
    public var redirectPolicy = RedirectPolicy.default
    /// How the caller sees the errors the engine ends with (a facade may speak other types).
    package var presentation = ErrorPresentation.native

    /// 1 MiB: the default of ``errorPayloadLimit``.
    public static let defaultErrorPayloadLimit = 1 << 20
    /// 64 MiB: the default of ``responseLimit``.
    public static let defaultResponseLimit = 64 << 20

    /// Creates an engine.
    public init(
        transport: any HTTPTransport,
        builder: RequestBuilder = RequestBuilder(),
        responseDecoderProvider: (@Sendable () -> JSONDecoder)? = nil,
        plugins: [any Plugin] = [],
        errorPayloadLimit: Int = RequestExecutor.defaultErrorPayloadLimit,
        responseLimit: Int = RequestExecutor.defaultResponseLimit,
        line: HoldTheLine? = nil,
        defaultTimeout: Duration? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        randomUnit: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.transport = transport
        self.builder = builder
        self.responseDecoderProvider = responseDecoderProvider
        self.plugins = plugins
        self.pluginList = PluginList(ordered: Self.ordered(plugins, []))
        self.errorPayloadLimit = errorPayloadLimit
        self.responseLimit = responseLimit
        self.line = line
        self.defaultTimeout = defaultTimeout
        self.clock = clock
        self.randomUnit = randomUnit
    }

    /// Sends `request` and decodes its response.
    /// - Parameters:
    ///   - request: The request to send.
    ///   - baseURL: The URL the request's path is appended to, unless the request names its own `baseURL`.
    ///   - accessToken: Read on the caller's actor before every attempt; a non-empty token is sent as
    ///     `Authorization: Bearer` unless the request sets its own `Authorization` header.
    ///   - credentials: Renews the credential on 401 (once per request), when the request allows retries.
    /// - Throws: ``NetworkError`` for a request that cannot be built (before anything is sent), the request's
    ///   `errorDecoder` result, the error model's ``ServerError`` or ``HTTPError`` for a failed status, ``NetworkError/unauthorized``, a renewal's
    ///   error, ``TransportError`` (``TransportError/Kind/timedOut`` past the request's timeout), `DecodingError` (its text also names the
    ///   response's status, content type and first bytes), a
    ///   plugin's error, or `CancellationError` when the calling task is cancelled.
    nonisolated(nonsending) public func send<Request: Endpoint>(
        _ request: Request,
        baseURL: URL,
        accessToken: (() -> String?)? = nil,
        credentials: (any CredentialRecovery)? = nil
    ) async throws -> Request.Response {
        let credentials = provider(accessToken, credentials)
        return try await withDefaults {
            try await perform(request, baseURL: baseURL, credentials: credentials, measures: false).value
        }
    }

    /// The defaults this engine lends to requests that keep ``Endpoint``'s (see ``EndpointDefaults``); `nil` when it
    /// has none.
    private var endpointDefaults: EndpointDefaults? {
        let defaults = EndpointDefaults(
            encoder: defaultEncoder, decoder: defaultDecoder, retryPolicy: defaultRetryPolicy)
        return defaults.isEmpty ? nil : defaults
    }

    /// Runs `body`, one request's road, with this engine's defaults bound for the request's properties that keep
    /// ``Endpoint``'s (its encoder, decoder and retry policy are read during the road), on the caller's actor.
    nonisolated(nonsending) func withDefaults<Value>(
        _ body: nonisolated(nonsending) () async throws -> Value
    ) async throws -> Value {
        guard let defaults = endpointDefaults else { return try await body() }
        return try await EndpointDefaults.$current.withValue(defaults, operation: body)
    }

    /// Sends `request` and returns the decoded value with its response and metrics.
    nonisolated(nonsending) public func response<Request: Endpoint>(
        for request: Request,
        baseURL: URL,
        accessToken: (() -> String?)? = nil,
        credentials: (any CredentialRecovery)? = nil
    ) async throws -> NetworkResponse<Request.Response> {
        try await response(for: request, baseURL: baseURL, credentials: provider(accessToken, credentials))
    }

    /// EKNetwork's credential: `accessToken` read on the caller's actor (the one `send` runs on), renewed by
    /// `recovery`.
    private func provider(
        _ accessToken: (() -> String?)?,
        _ recovery: (any CredentialRecovery)?,
        isolation: isolated (any Actor)? = #isolation
    ) -> any CredentialProvider {
        if accessToken == nil, recovery == nil { return BearerTokenCredentials.none }
        return BearerTokenCredentials(token: CallerIsolated(accessToken, isolation: isolation), recovery: recovery)
    }

    /// Sends `request` with a credential of your own (an OAuth `Authenticator`, a signing key) and returns the
    /// decoded value with its response and metrics.
    nonisolated(nonsending) public func response<Request: Endpoint>(
        for request: Request,
        baseURL: URL,
        credentials: any CredentialProvider
    ) async throws -> NetworkResponse<Request.Response> {
        let outcome = try await withDefaults {
            try await perform(request, baseURL: baseURL, credentials: credentials, measures: true)
        }
        return NetworkResponse(
            value: outcome.value, received: outcome.received, origin: outcome.received.origin, metrics: outcome.metrics!
        )
    }

    /// The road of `send`, `response` and `pages`: build, the stages, decode. `measures`: whether the caller wants
    /// the metrics; when neither it nor a plugin does, the request ends without them. `target`: an absolute URL the
    /// request goes to instead of its own (a page's `Link`), its query kept exactly; the credential guard is the one
    /// of the request as built, so credentials still go only where ``credentialScope`` allows.
    nonisolated(nonsending) func perform<Request: Endpoint>(
        _ request: Request,
        baseURL: URL,
        credentials: any CredentialProvider,
        measures: Bool,
        target: URL? = nil
    ) async throws -> (value: Request.Response, received: ReceivedResponse, metrics: RequestMetrics?) {
        var built: TransportRequest
        do {
            built = try builder.makeRequest(request, baseURL: baseURL)
        } catch {
            logUnsent(request, error)
            throw presentation.present(error)
        }
        let state = RequestState(isStreaming: false)
        let plugins = pluginList(adding: request.plugins)
        declareCredentials(in: &built, plugins: plugins)
        let credentialGuard = self.credentialGuard(for: built, baseURL: baseURL, ownFields: request)
        if let target {
            do {
                try built.head.setURL(target)
            } catch {
                throw presentation.present(error)
            }
        }
        let mayRepeat =
            request.allowsRetry && built.isReplayable
            && RetryPolicy.allowsRepeating(
                method: built.method,
                declaredIdempotent: request.isIdempotent,
                hasIdempotencyKey: built.value(forHeader: "Idempotency-Key") != nil
            )
        let road = stages(
            state: state,
            plugins: plugins,
            timeout: request.timeout ?? defaultTimeout,
            retryPolicy: mayRepeat ? request.retryPolicy : nil,
            credentials: credentials,
            allowsRenewal: request.allowsRetry,
            errorDecoder: CallerIsolated(request.errorDecoder),
            errorModel: serverErrorDecoding(for: request),
            body: .collect(responseLimit: responseLimit, errorLimit: errorPayloadLimit),
            credentialGuard: credentialGuard
        )
        do {
            let exchange = try await road.run(built)
            let received = exchange.received
            let value = try decode(request, received)
            built.progress?.markFinished()
            guard measures || plugins.any(.didSucceed) else { return (value, received, nil) }
            let metrics = state.finish()
            for plugin in plugins.taking(.didSucceed) {
                await plugin.didFinish(
                    exchange.request, result: .success(received), metrics: metrics, context: state.endContext)
            }
            return (value, received, metrics)
        } catch {
            throw await fail(built, with: error, state: state, plugins: plugins)
        }
    }

    /// Sends `request` and returns its response once the head has arrived, with the body unread: the road of
    /// `stream()`, with an `accessToken` read on the caller's actor and the `tokenRefresher`'s recovery.
    nonisolated(nonsending) public func streamingResponse<Request: Endpoint>(
        for request: Request,
        baseURL: URL,
        accessToken: (() -> String?)? = nil,
        credentials: (any CredentialRecovery)? = nil
    ) async throws -> (response: TransportResponse, metrics: RequestMetrics) {
        let provider = BearerTokenCredentials(token: CallerIsolated(accessToken), recovery: credentials)
        return try await streamingResponse(for: request, baseURL: baseURL, credentials: provider)
    }

    /// Sends `request` and returns its response once the head has arrived, with the body unread: the road of
    /// `stream()`. The same stages as ``response(for:baseURL:credentials:)`` but no retry policy and no progress;
    /// a 401 renews the credential once before any body byte is handed over; a failed status is drained (up to
    /// ``errorPayloadLimit``, one byte more is ``StreamingError/errorPayloadTooLarge(limitBytes:)``) into its
    /// error. Plugins' `didFinish` runs when the head has arrived.
    nonisolated(nonsending) public func streamingResponse<Request: Endpoint>(
        for request: Request,
        baseURL: URL,
        credentials: any CredentialProvider
    ) async throws -> (response: TransportResponse, metrics: RequestMetrics) {
        try await withDefaults {
            try await streamingRoad(for: request, baseURL: baseURL, credentials: credentials)
        }
    }

    /// The road of ``streamingResponse(for:baseURL:credentials:)``.
    nonisolated(nonsending) private func streamingRoad<Request: Endpoint>(
        for request: Request,
        baseURL: URL,
        credentials: any CredentialProvider
    ) async throws -> (response: TransportResponse, metrics: RequestMetrics) {
        var built: TransportRequest
        do {
            built = try builder.makeRequest(request, baseURL: baseURL)
        } catch {
            logUnsent(request, error)
            throw presentation.present(error)
        }
        built.progress = nil
        let state = RequestState(isStreaming: true)
        let plugins = pluginList(adding: request.plugins)
        declareCredentials(in: &built, plugins: plugins)
        let credentialGuard = self.credentialGuard(for: built, baseURL: baseURL, ownFields: request)
        let timeout = request.timeout ?? defaultTimeout
        let road = stages(
            state: state,
            plugins: plugins,
            timeout: timeout,
            retryPolicy: nil,
            credentials: credentials,
            allowsRenewal: request.allowsRetry,
            errorDecoder: CallerIsolated(request.errorDecoder),
            errorModel: serverErrorDecoding(for: request),
            body: .stream(errorLimit: errorPayloadLimit),
            credentialGuard: credentialGuard
        )
        do {
            let exchange = try await road.run(built)
            let metrics = state.finish()
            for plugin in plugins.taking(.didSucceed) {
                await plugin.didFinish(
                    exchange.request, result: .success(exchange.received), metrics: metrics, context: state.endContext)
            }
            // The body is read after this returns: the request's timeout and idle timeout go with it.
            var response = exchange.response
            response.body = response.body.bounded(
                by: BodyTimeouts(
                    deadline: timeout.map { state.start + $0 }, idle: exchange.request.idleTimeout,
                    host: exchange.request.head.host))
            return (response, metrics)
        } catch {
            throw await fail(built, with: error, state: state, plugins: plugins)
        }
    }

    /// The one road, outermost first.
    func stages(
        state: RequestState,
        plugins: PluginList,
        timeout: Duration?,
        retryPolicy: RetryPolicy?,
        credentials: any CredentialProvider,
        allowsRenewal: Bool,
        errorDecoder: CallerIsolated<((Data) -> (any Error)?)?>,
        errorModel: ServerErrorDecoding?,
        body: BodyStage.Mode,
        credentialGuard: CredentialGuard
    ) -> Road {
        var retry: RetryStage?
        if let retryPolicy, retryPolicy.maxRetryCount > 0 {
            retry = RetryStage(
                policy: retryPolicy, state: state, clock: clock, randomUnit: randomUnit, presentation: presentation)
        }
        // The cache answers and stores on `send`'s road only (a stream's body is the caller's to read, once) but
        // invalidates on every road; coalescing is `send`'s. Both tell callers apart by transport and cookie jar too.
        let collects = if case .collect = body { true } else { false }
        let statusCheck = StatusCheckStage(errorDecoder: errorDecoder, errorModel: errorModel, credentials: credentials)
        return Road(
            deadline: timeout.map { DeadlineStage(deadline: state.start + $0) },
            preparation: plugins.any(.prepare) ? PreparationStage(plugins: plugins, state: state) : nil,
            retry: retry,
            line: line,
            redirect: redirectPolicy.followsRedirects
                ? RedirectStage(policy: redirectPolicy, state: state, statusCheck: statusCheck) : nil,
            credential: CredentialStage(
                credentials: credentials, allowsRenewal: allowsRenewal, state: state, credentialGuard: credentialGuard),
            statusCheck: statusCheck,
            attempt: PluginAttemptStage(plugins: plugins, state: state),
            credentialGuard: credentialGuard,
            cookies: cookieJar.map(CookieStage.init),
            cache: responseCache.map {
                CacheStage(cache: $0, state: state, transport: transport, cookieJar: cookieJar, stores: collects)
            },
            coalesce: collects
                ? coalescer.map {
                    CoalescingStage(coalescer: $0, state: state, transport: transport, cookieJar: cookieJar)
                } : nil,
            body: BodyStage(mode: body, state: state, credentials: credentials),
            transport: transport,
            state: state
        )
    }

    /// Marks the fields of `request` that carry a credential: the standard ones, the engine's and the plugins'.
    func declareCredentials(in request: inout TransportRequest, plugins: PluginList) {
        var fields = request.credentialFields.union(credentialFields)
        if !plugins.credentialFields.isEmpty { fields.formUnion(plugins.credentialFields) }
        request.credentialFields = fields
    }

    /// The guard that keeps `request`'s credentials to the origins ``credentialScope`` allows for `baseURL`;
    /// `endpoint`'s own `headers` and `headerFields` may go to its own origin.
    func credentialGuard<Request: Endpoint>(for request: TransportRequest, baseURL: URL, ownFields endpoint: Request)
        -> CredentialGuard
    {
        guard !credentialScope.allowsAnyOrigin else { return .open }
        return CredentialGuard(
            for: request, scope: credentialScope, baseURL: baseURL, isAtBase: endpoint.baseURL == nil
        ) { name in
            // Read only for a request outside the scope, and only for its credential fields.
            endpoint.headers?.keys.contains { HeaderValidation.namesMatch($0, name) } == true
                || (try? endpoint.headerFields)?.contains(name) == true
        }
    }

    /// Writes a request the builder refused (a base URL, path, header or body: nothing was sent, and no plugin hook
    /// runs for it) to the log of each ``LoggingPlugin`` it would have run: the one line its failure gets, naming
    /// the precise error before a facade presents it otherwise.
    func logUnsent<Request: Endpoint>(_ request: Request, _ error: any Error) {
        for case let logging as LoggingPlugin in pluginList(adding: request.plugins).plugins {
            logging.logUnsent(method: request.method, path: request.path, error: error)
        }
    }

    /// Ends a failed request: the caller's error, progress, and the plugins' `wasCancelled` / `didFinish`.
    func fail(_ built: TransportRequest, with error: any Error, state: RequestState, plugins: PluginList) async
        -> any Error
    {
        let cancelled = error is CancellationError || Task.isCancelled
        let visible: any Error =
            switch error {
            case _ where cancelled: CancellationError()
            case let failure as ResponseFailure: failure.error
            case let failure as RefreshFailure: failure.underlying
            default: error
            }
        built.progress?.markEnded(cancelled ? .cancelled : .failed)
        let metrics = state.finish()
        let request = (error as? ResponseFailure)?.exchange.request ?? built
        let result: Result<ReceivedResponse, any Error> = .failure(visible)
        let context = state.endContext
        for (index, plugin) in plugins.plugins.enumerated() {
            let hooks = plugins.hooks(at: index)
            if cancelled, hooks.contains(.wasCancelled) {
                await plugin.wasCancelled(request, metrics: metrics, context: context)
            }
            if hooks.contains(.didFail) {
                await plugin.didFinish(request, result: result, metrics: metrics, context: context)
            }
        }
        return presentation.present(visible)
    }

    private func decode<Request: Endpoint>(_ request: Request, _ received: ReceivedResponse) throws -> Request.Response
    {
        let decoder = request.allowsResponseDecoderOverride ? responseDecoderProvider?() : nil
        if request.decodesErrorModelOnSuccess || decodesErrorModelOnSuccess,
            let error = serverErrorDecoding(for: request)?.error(head: received.head, body: received.body)
        {
            throw error
        }
        do {
            return try request.decode(received, decoder: decoder)
        } catch let error as DecodingError {
            // The decoder's own words lack what the body was (an HTML error page, say): the text adds it.
            throw DecodingErrorDetails.adding(received.head, body: received.body, to: error)
        }
    }

    /// The request's error model (or the engine's) with the decoder its `Response` would be decoded with; `nil`, and
    /// nothing made, when neither names one.
    private func serverErrorDecoding<Request: Endpoint>(for request: Request) -> ServerErrorDecoding? {
        guard let model = request.errorModel ?? errorModel else { return nil }
        let decoder = request.allowsResponseDecoderOverride ? responseDecoderProvider?() : nil
        return ServerErrorDecoding(model: model, decoder: decoder ?? request.jsonDecoder)
    }

    /// The engine's plugins with the request's own, in order with their hooks: worked out once per engine for the
    /// requests that bring none.
    func pluginList(adding own: [any Plugin]) -> PluginList {
        own.isEmpty ? pluginList : PluginList(ordered: Self.ordered(plugins, own))
    }

    /// The engine's plugins, then the request's: higher priority first; equal priorities keep their order (the
    /// engine's before the request's).
    static func ordered(_ engine: [any Plugin], _ request: [any Plugin]) -> [any Plugin] {
        let plugins = request.isEmpty ? engine : engine + request
        // Most requests bring no plugin of their own and the engine's are registered in order already.
        if zip(plugins, plugins.dropFirst()).allSatisfy({ $0.priority >= $1.priority }) { return plugins }
        return plugins.enumerated()
            .sorted {
                $0.element.priority != $1.element.priority
                    ? $0.element.priority > $1.element.priority : $0.offset < $1.offset
            }
            .map(\.element)
    }
}
