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
@dynamicMemberLookup
public struct RequestExecutor: Sendable {
    /// Where requests go.
    public var transport: any HTTPTransport
    /// Every other setting of the engine, held once; each is also read and set on the engine by its own name
    /// (`executor.cookieJar = jar` sets ``Configuration/cookieJar``).
    public var configuration: Configuration {
        _read { yield settings.configuration }
        _modify {
            if !isKnownUniquelyReferenced(&settings) { settings = Settings(settings.configuration) }
            yield &settings.configuration
        }
    }

    /// ``configuration``, in one object shared by copies until one of them changes it (copy on write): the engine is
    /// copied into every request it sends, and a copy of two dozen settings retained each of them.
    private var settings: Settings

    /// The settings of a ``RequestExecutor``.
    ///
    /// `@unchecked Sendable`, and safe: the configuration is changed only through ``configuration``'s `_modify`, which
    /// first gives the engine a box of its own unless no other engine holds this one; a box two engines hold is only
    /// ever read.
    private final class Settings: @unchecked Sendable {
        var configuration: Configuration

        init(_ configuration: Configuration) {
            self.configuration = configuration
        }
    }

    /// 1 MiB: the default of ``Configuration/errorPayloadLimit``.
    public static let defaultErrorPayloadLimit = 1 << 20
    /// 64 MiB: the default of ``Configuration/responseLimit``.
    public static let defaultResponseLimit = 64 << 20

    /// Creates an engine over `transport` with `configuration`.
    public init(transport: any HTTPTransport, configuration: Configuration) {
        self.transport = transport
        self.settings = Settings(configuration)
    }

    /// Creates an engine, the settings not named here at their defaults (see ``Configuration``).
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
        self.init(
            transport: transport,
            configuration: Configuration(
                builder: builder, responseDecoderProvider: responseDecoderProvider, plugins: plugins,
                errorPayloadLimit: errorPayloadLimit, responseLimit: responseLimit, line: line,
                defaultTimeout: defaultTimeout, clock: clock, randomUnit: randomUnit))
    }

    /// A setting of ``configuration`` by its own name: `executor.defaultTimeout` is
    /// `executor.configuration.defaultTimeout`.
    public subscript<Value>(dynamicMember setting: WritableKeyPath<Configuration, Value>) -> Value {
        get { configuration[keyPath: setting] }
        set { configuration[keyPath: setting] = newValue }
    }

    /// The calls in flight that identical requests share, when coalescing is on.
    package var coalescer: RequestCoalescer? { configuration.coalescer }

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
        var report = RoadReport()
        return try await withDefaults {
            try await perform(request, baseURL: baseURL, credentials: credentials, measures: false, report: &report)
        }
    }

    /// Runs `body`, one request's road, with this engine's defaults bound for the request's properties that keep
    /// ``Endpoint``'s (its encoder, decoder and retry policy are read during the road), on the caller's actor.
    nonisolated(nonsending) package func withDefaults<Value>(
        _ body: nonisolated(nonsending) () async throws -> Value
    ) async throws -> Value {
        // The defaults the configuration lends (see `EndpointDefaults`), read one by one out of the box: a computed
        // property of the configuration would copy it whole, every setting retained, for every request.
        let settings = self.settings
        let defaults = EndpointDefaults(
            encoder: settings.configuration.defaultEncoder, decoder: settings.configuration.defaultDecoder,
            retryPolicy: settings.configuration.defaultRetryPolicy)
        guard !defaults.isEmpty else { return try await body() }
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
        if accessToken == nil, recovery == nil { return NoCredentials() }
        return BearerTokenCredentials(token: CallerIsolated(accessToken, isolation: isolation), recovery: recovery)
    }

    /// Sends `request` with a credential of your own (an OAuth `Authenticator`, a signing key) and returns the
    /// decoded value with its response and metrics.
    nonisolated(nonsending) public func response<Request: Endpoint>(
        for request: Request,
        baseURL: URL,
        credentials: any CredentialProvider
    ) async throws -> NetworkResponse<Request.Response> {
        var report = RoadReport()
        let value = try await withDefaults {
            try await perform(request, baseURL: baseURL, credentials: credentials, measures: true, report: &report)
        }
        // `measures: true`: a request that returns has both.
        return NetworkResponse(
            value: value, received: report.received!, origin: report.received!.origin, metrics: report.metrics!)
    }

    /// `send`'s, `response`'s and `pages`' way down the one road (`takeRoad`): the body collected and decoded.
    /// `measures`: whether the caller wants the metrics and the response (in `report`); when neither it nor a plugin
    /// does, the request ends without them. `target`: an absolute URL the request goes to instead of its own (a
    /// page's `Link`), its query kept exactly; the credential guard is the one of the request as built, so
    /// credentials still go only where ``Configuration/credentialScope`` allows.
    nonisolated(nonsending) func perform<Request: Endpoint>(
        _ request: Request,
        baseURL: URL,
        credentials: any CredentialProvider,
        measures: Bool,
        target: URL? = nil,
        report: inout RoadReport
    ) async throws -> Request.Response {
        var built = try build(request, baseURL: baseURL)
        let plan = self.plan(
            for: request, &built, baseURL: baseURL, credentials: credentials, retries: true,
            body: .collect(responseLimit: configuration.responseLimit, errorLimit: configuration.errorPayloadLimit))
        if let target {
            do {
                try built.head.setURL(target)
            } catch {
                throw configuration.presentation.present(error)
            }
        }
        return try await takeRoad(built, plan: plan, measures: measures, metrics: &report.metrics) { _, received in
            if measures { report.received = received }
            return try decode(request, received)
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
    /// ``Configuration/errorPayloadLimit``, one byte more is ``StreamingError/errorPayloadTooLarge(limitBytes:)``)
    /// into its error. Plugins' `didFinish` runs when the head has arrived.
    nonisolated(nonsending) public func streamingResponse<Request: Endpoint>(
        for request: Request,
        baseURL: URL,
        credentials: any CredentialProvider
    ) async throws -> (response: TransportResponse, metrics: RequestMetrics) {
        try await withDefaults {
            var built = try build(request, baseURL: baseURL)
            built.progress = nil
            let plan = self.plan(
                for: request, &built, baseURL: baseURL, credentials: credentials, retries: false,
                body: .stream(errorLimit: configuration.errorPayloadLimit))
            var metrics: RequestMetrics?
            let response = try await takeRoad(built, plan: plan, measures: true, metrics: &metrics) { response, _ in
                response
            }
            return (response: response, metrics: metrics!)
        }
    }

    /// `request` as the builder makes it; a request it refuses is logged and fails in the caller's words.
    private func build<Request: Endpoint>(_ request: Request, baseURL: URL) throws -> TransportRequest {
        do {
            return try configuration.builder.makeRequest(request, baseURL: baseURL)
        } catch {
            logUnsent(request, error)
            throw configuration.presentation.present(error)
        }
    }

    /// What an ``Endpoint``'s request takes down the road: its plugins and the engine's (their credential fields
    /// declared on `built`), its timeout, its retry policy when `retries` and the request may be repeated, its
    /// error decoding, and the guard that keeps credentials where ``Configuration/credentialScope`` allows.
    private func plan<Request: Endpoint>(
        for request: Request,
        _ built: inout TransportRequest,
        baseURL: URL,
        credentials: any CredentialProvider,
        retries: Bool,
        body: BodyStage.Mode
    ) -> RoadPlan {
        let plugins = pluginList(adding: request.plugins)
        declareCredentials(in: &built, plugins: plugins)
        built.connection = connectionSettings(request.connection)
        let safeToRepeat =
            request.allowsRetry && built.isReplayable
            && RetryPolicy.allowsRepeating(
                method: built.method,
                declaredIdempotent: request.isIdempotent,
                hasIdempotencyKey: built.value(forHeader: "Idempotency-Key") != nil
            )
        return RoadPlan(
            plugins: plugins,
            timeout: request.timeout ?? configuration.defaultTimeout,
            retryPolicy: retries && safeToRepeat ? request.retryPolicy : nil,
            resendsUnanswered: safeToRepeat,
            credentials: credentials,
            allowsRenewal: request.allowsRetry,
            errorDecoder: CallerIsolated(request.errorDecoder),
            errorModel: serverErrorDecoding(for: request),
            body: body,
            credentialGuard: credentialGuard(for: built, baseURL: baseURL, ownFields: request)
        )
    }

    /// The connection settings a request takes: its own, or the engine's; `nil` when they are the transport's
    /// defaults, so that the road has nothing to ask the transport.
    func connectionSettings(_ own: ConnectionSettings?) -> ConnectionSettings? {
        if let own { return own.isTransportDefault ? nil : own }
        // Asked in place: the defaults, every request's case, cost no copy of the settings.
        return configuration.connection.isTransportDefault ? nil : configuration.connection
    }

    /// Marks the fields of `request` that carry a credential: the standard ones, the engine's and the plugins'.
    func declareCredentials(in request: inout TransportRequest, plugins: PluginList) {
        let declared = configuration.credentialFields
        // Nothing declared (the default): the request keeps the standard fields without touching them.
        guard !declared.isEmpty || !plugins.credentialFields.isEmpty else { return }
        var fields = request.credentialFields.union(declared)
        if !plugins.credentialFields.isEmpty { fields.formUnion(plugins.credentialFields) }
        request.credentialFields = fields
    }

    /// The guard that keeps `request`'s credentials to the origins ``Configuration/credentialScope`` allows for
    /// `baseURL`; `endpoint`'s own `headers` and `headerFields` may go to its own origin.
    func credentialGuard<Request: Endpoint>(for request: TransportRequest, baseURL: URL, ownFields endpoint: Request)
        -> CredentialGuard
    {
        let scope = configuration.credentialScope
        guard !scope.allowsAnyOrigin else { return .open }
        return CredentialGuard(for: request, scope: scope, baseURL: baseURL, isAtBase: endpoint.baseURL == nil) {
            name in
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
            logging.logUnsent(method: request.requestMethod, path: request.path, error: error)
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
        if cancelled { state.emit(.cancelled) }
        state.emit(.callFailed(reason: RequestState.reason(visible)))
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
        return configuration.presentation.present(visible)
    }

    private func decode<Request: Endpoint>(_ request: Request, _ received: ReceivedResponse) throws -> Request.Response
    {
        let decoder = request.allowsResponseDecoderOverride ? configuration.responseDecoderProvider?() : nil
        if request.decodesErrorModelOnSuccess || configuration.decodesErrorModelOnSuccess,
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
        guard let model = request.errorModel ?? configuration.errorModel else { return nil }
        let decoder = request.allowsResponseDecoderOverride ? configuration.responseDecoderProvider?() : nil
        return ServerErrorDecoding(model: model, decoder: decoder ?? request.jsonDecoder)
    }

    /// The engine's plugins with the request's own, in order with their hooks: worked out once per configuration
    /// for the requests that bring none.
    func pluginList(adding own: [any Plugin]) -> PluginList {
        own.isEmpty ? configuration.pluginList : PluginList(ordered: Self.ordered(configuration.plugins, own))
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
