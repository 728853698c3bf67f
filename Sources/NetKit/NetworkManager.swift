import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetKitLock

/// Sends ``NetworkRequest``s: EKNetwork's facade over NetKit's engine.
///
/// ```swift
/// let manager = NetworkManager(baseURL: URL(string: "https://api.example.com")!)
/// manager.tokenRefresher = TokenManager()
/// let user = try await manager.send(GetUserRequest(id: 42), accessToken: { TokenStore.shared.accessToken })
/// ```
///
/// Differences from EKNetwork: the class is `final` and `Sendable`; `baseURL` must be a `@Sendable`
/// closure; 401s from concurrent requests share one token refresh; only transient failures are retried by
/// default; a `URLSession` passed as `session` lends its configuration to a session NetKit owns, so that
/// progress, streaming and cancellation work on Linux too.
public final class NetworkManager: NetworkManaging, NetworkStreaming, Sendable {
    private struct Settings {
        /// The engine's settings, kept once: every engine setting of the manager reads and writes it. The engines
        /// are built from it, with ``logging`` after its plugins, the manager's line and its way of reporting errors.
        var engine = RequestExecutor.Configuration() {
            didSet { executors = nil }
        }
        var refresher: TokenRefresherReference?
        var coordinator: TokenRefreshCoordinator?
        var refreshPolicy: TokenRefreshPolicy
        var holdsRequestsDuringRefresh = false
        var logging: LoggingPlugin {
            didSet { executors = nil }
        }
        var userAgentConfiguration: UserAgentConfiguration? {
            didSet { engine.builder.userAgent = userAgentConfiguration?.generateUserAgentString() }
        }
        /// The engines of `send` and `stream` with these settings, built on the first request after a change
        /// rather than per request (an engine works out its plugins' order and hooks when it is built).
        var executors: Executors?

        init(refreshPolicy: TokenRefreshPolicy, logging: LoggingPlugin) {
            self.refreshPolicy = refreshPolicy
            self.logging = logging
        }
    }

    /// Returns the base URL; called for every request, so it may change between requests.
    public let baseURL: @Sendable () -> URL
    /// Every request waits here, before its token is read, while the line is held: while you hold it with
    /// ``HoldTheLine/withLineHeld(_:)``, and during token refreshes when ``holdsRequestsDuringRefresh`` is on.
    public let requestLine = HoldTheLine()
    private let transport: any HTTPTransport
    /// Where `stream` goes: the same transport, unless `session:` was a mock that cannot stream.
    private let streamingTransport: any HTTPTransport
    private let settings: Lock<Settings>

    /// Creates a manager that sends (and streams) through `transport`, running `plugins` on every request.
    public convenience init(
        baseURL: @escaping @Sendable () -> URL,
        transport: any HTTPTransport,
        plugins: [any Plugin] = [],
        loggerSubsystem: String = NetworkLogger.placeholderSubsystem,
        userAgentConfiguration: UserAgentConfiguration? = nil,
        responseDecoderProvider: (@Sendable () -> JSONDecoder)? = nil,
        tokenRefreshPolicy: TokenRefreshPolicy = TokenRefreshPolicy()
    ) {
        self.init(
            baseURL: baseURL,
            transport: transport,
            streamingTransport: transport,
            plugins: plugins,
            loggerSubsystem: loggerSubsystem,
            userAgentConfiguration: userAgentConfiguration,
            responseDecoderProvider: responseDecoderProvider,
            tokenRefreshPolicy: tokenRefreshPolicy
        )
    }

    /// Creates a manager that sends through `transport` and streams through `streamingTransport`, running `plugins`
    /// on every request.
    public init(
        baseURL: @escaping @Sendable () -> URL,
        transport: any HTTPTransport,
        streamingTransport: any HTTPTransport,
        plugins: [any Plugin] = [],
        loggerSubsystem: String = NetworkLogger.placeholderSubsystem,
        userAgentConfiguration: UserAgentConfiguration? = nil,
        responseDecoderProvider: (@Sendable () -> JSONDecoder)? = nil,
        tokenRefreshPolicy: TokenRefreshPolicy = TokenRefreshPolicy()
    ) {
        self.baseURL = baseURL
        self.transport = transport
        self.streamingTransport = streamingTransport
        var settings = Settings(
            refreshPolicy: tokenRefreshPolicy, logging: LoggingPlugin(logger: NetworkLogger(subsystem: loggerSubsystem))
        )
        settings.engine.responseDecoderProvider = responseDecoderProvider
        settings.engine.plugins = plugins
        settings.userAgentConfiguration = userAgentConfiguration
        self.settings = Lock(settings)
    }

    /// EKNetwork's initializer.
    ///
    /// A `URLSession` passed as `session` lends its configuration and its delegate's challenge handling to a
    /// ``URLSessionTransport`` that NetKit owns, which both sends and streams; any other ``URLSessionProtocol``
    /// (a mock) is called as it is by `send`. `stream` goes through `streamingSession` when given (a `URLSession`
    /// the same way, a mock through ``ByteStreamTransport``), else through the `session`'s transport when it is a
    /// real session, else through a transport built from `URLSession.shared`'s configuration: never through a
    /// mock's `data(for:)`.
    public convenience init(
        baseURL: @escaping @Sendable () -> URL,
        session: any URLSessionProtocol = URLSession.shared,
        streamingSession: (any URLSessionStreamingProtocol)? = nil,
        loggerSubsystem: String = NetworkLogger.placeholderSubsystem,
        userAgentConfiguration: UserAgentConfiguration? = nil,
        responseDecoderProvider: (@Sendable () -> JSONDecoder)? = nil
    ) {
        let (transport, streamingTransport) = Self.transports(session: session, streamingSession: streamingSession)
        self.init(
            baseURL: baseURL,
            transport: transport,
            streamingTransport: streamingTransport,
            loggerSubsystem: loggerSubsystem,
            userAgentConfiguration: userAgentConfiguration,
            responseDecoderProvider: responseDecoderProvider
        )
    }

    /// EKNetwork's convenience initializer for a fixed base URL.
    public convenience init(
        baseURL: URL,
        session: any URLSessionProtocol = URLSession.shared,
        streamingSession: (any URLSessionStreamingProtocol)? = nil,
        loggerSubsystem: String = NetworkLogger.placeholderSubsystem,
        userAgentConfiguration: UserAgentConfiguration? = nil,
        responseDecoderProvider: (@Sendable () -> JSONDecoder)? = nil
    ) {
        self.init(
            baseURL: { baseURL },
            session: session,
            streamingSession: streamingSession,
            loggerSubsystem: loggerSubsystem,
            userAgentConfiguration: userAgentConfiguration,
            responseDecoderProvider: responseDecoderProvider
        )
    }

    /// A fixed base URL with a transport of your choice, running `plugins` on every request.
    public convenience init(baseURL: URL, transport: any HTTPTransport, plugins: [any Plugin] = []) {
        self.init(baseURL: { baseURL }, transport: transport, plugins: plugins)
    }

    /// Creates a manager with every setting of `configuration`: MicroClient's way of building a client.
    ///
    /// ```swift
    /// var configuration = NetworkConfiguration(baseURL: URL(string: "https://api.example.com")!)
    /// configuration.defaultHeaders = ["X-Client": "ios"]
    /// let manager = NetworkManager(configuration: configuration)
    /// ```
    ///
    /// The manager sends and streams through `configuration.transport`. Its settings stay settable one by one
    /// afterwards; ``configuration`` reads them back as one value.
    public convenience init(configuration: NetworkConfiguration) {
        let baseURL = configuration.baseURL
        self.init(
            baseURL: { baseURL },
            transport: configuration.transport,
            streamingTransport: configuration.transport,
            plugins: configuration.plugins,
            userAgentConfiguration: configuration.userAgentConfiguration,
            tokenRefreshPolicy: configuration.tokenRefreshPolicy
        )
        settings.withLock { settings in
            var engine = configuration.engine
            engine.builder.userAgent = settings.engine.builder.userAgent ?? engine.builder.userAgent
            engine.responseLimit = max(0, engine.responseLimit)
            engine.errorPayloadLimit = max(0, engine.errorPayloadLimit)
            settings.engine = engine
            settings.logging = configuration.logging
            settings.holdsRequestsDuringRefresh = configuration.holdsRequestsDuringRefresh
        }
        tokenRefresher = configuration.tokenRefresher
    }

    /// The manager's settings as one value: the base URL as ``baseURL`` returns it now, the transport `send` uses,
    /// and every other setting as it stands. Building a manager from it gives one that behaves the same (and shares
    /// this one's transport, coders, cache, cookie jar and token refresher, which are references).
    public var configuration: NetworkConfiguration {
        var configuration = NetworkConfiguration(baseURL: baseURL())
        configuration.transport = transport
        // Read first: a manager makes its coders on first use, a configuration always has them.
        _ = (defaultEncoder, defaultDecoder)
        configuration.tokenRefresher = tokenRefresher
        settings.withLock { settings in
            configuration.engine = settings.engine
            configuration.userAgentConfiguration = settings.userAgentConfiguration
            configuration.logging = settings.logging
            configuration.tokenRefreshPolicy = settings.refreshPolicy
            configuration.holdsRequestsDuringRefresh = settings.holdsRequestsDuringRefresh
        }
        return configuration
    }

    /// Refreshes the token on 401; concurrent 401s share one refresh. Setting it starts a new refresh history.
    public var tokenRefresher: (any TokenRefreshProvider)? {
        get { settings.withLock { $0.refresher?.provider } }
        set {
            let reference = newValue.map(TokenRefresherReference.init)
            let coordinator = reference.map { reference in
                TokenRefreshCoordinator(configuration: { [weak self] in
                    self?.refreshConfiguration ?? .init(policy: TokenRefreshPolicy(), line: nil)
                }) {
                    try await reference.provider.refreshTokenIfNeeded()
                }
            }
            settings.withLock {
                $0.refresher = reference
                $0.coordinator = coordinator
            }
        }
    }

    /// Whether requests that start during a token refresh wait for it (and go out with the new token)
    /// instead of going out with the old one. Off by default; a change applies from the next refresh.
    public var holdsRequestsDuringRefresh: Bool {
        get { settings.withLock { $0.holdsRequestsDuringRefresh } }
        set { settings.withLock { $0.holdsRequestsDuringRefresh = newValue } }
    }

    private var refreshConfiguration: TokenRefreshCoordinator.Configuration {
        let line = requestLine
        return settings.withLock { .init(policy: $0.refreshPolicy, line: $0.holdsRequestsDuringRefresh ? line : nil) }
    }

    /// How often the token may be refreshed before 401s fail with ``TokenRefreshError/refreshLimitExceeded(limit:interval:)``.
    public var tokenRefreshPolicy: TokenRefreshPolicy {
        get { settings.withLock { $0.refreshPolicy } }
        set { settings.withLock { $0.refreshPolicy = newValue } }
    }

    /// Replaces each request's `jsonDecoder` for requests that allow it (`allowsResponseDecoderOverride`).
    public var responseDecoderProvider: (@Sendable () -> JSONDecoder)? {
        get { settings.withLock { $0.engine.responseDecoderProvider } }
        set { settings.withLock { $0.engine.responseDecoderProvider = newValue } }
    }

    /// The largest successful body `send` reads into memory; a longer one fails with
    /// ``NetworkError/responseTooLarge(limitBytes:)``. 64 MiB by default.
    public var responseLimit: Int {
        get { settings.withLock { $0.engine.responseLimit } }
        set { settings.withLock { $0.engine.responseLimit = max(0, newValue) } }
    }

    /// The former name of ``responseLimit``, the engine's name for the same setting.
    @available(*, deprecated, renamed: "responseLimit")
    public var responseSizeLimit: Int {
        get { responseLimit }
        set { responseLimit = newValue }
    }

    /// The most bytes of an error body kept for `errorDecoder` and ``HTTPError``; a longer body is cut there and
    /// the `HTTPError` marked ``HTTPError/isTruncated``, keeping its status and headers. 1 MiB by default.
    public var errorPayloadLimit: Int {
        get { settings.withLock { $0.engine.errorPayloadLimit } }
        set { settings.withLock { $0.engine.errorPayloadLimit = max(0, newValue) } }
    }

    /// The longest a request that names no `timeout` of its own may take, all attempts, retry waits and token
    /// refresh included; it then fails with `URLError(.timedOut)`. `nil` (the default): no such limit.
    public var defaultTimeout: Duration? {
        get { settings.withLock { $0.engine.defaultTimeout } }
        set { settings.withLock { $0.engine.defaultTimeout = newValue } }
    }

    /// The former name of ``defaultTimeout``, the engine's name for the same setting.
    @available(*, deprecated, renamed: "defaultTimeout")
    public var requestTimeout: Duration? {
        get { defaultTimeout }
        set { defaultTimeout = newValue }
    }

    /// Answers and revalidates the GET requests of `send` from memory (RFC 9111), the same on every transport; a
    /// response answers only requests with the same credentials, transport and cookie jar, and a successful `POST`,
    /// `PUT`, `PATCH` or `DELETE`, sent or streamed, removes what is stored for its URL; `nil` (the default): every
    /// request goes to the network.
    public var responseCache: ResponseCache? {
        get { settings.withLock { $0.engine.responseCache } }
        set { settings.withLock { $0.engine.responseCache = newValue } }
    }

    /// Stores every `Set-Cookie` and sends `Cookie` on later requests to matching hosts and paths (RFC 6265), the
    /// same on every transport; `nil` (the default): NetKit keeps no cookies.
    public var cookieJar: CookieJar? {
        get { settings.withLock { $0.engine.cookieJar } }
        set { settings.withLock { $0.engine.cookieJar = newValue } }
    }

    /// Whether identical GET and HEAD requests in flight at once (same URL, headers and credentials) share one
    /// network call; each caller still gets its own value. Off by default.
    ///
    /// A request ID or trace context (``RequestIDPlugin``'s header, `traceparent`: see
    /// ``TransportRequest/markCorrelationHeader(_:)``) does not make requests differ: the call goes out with
    /// the values of the request that started it, and each caller's plugins still see its own.
    public var coalescesIdenticalRequests: Bool {
        get { settings.withLock { $0.engine.coalescesIdenticalRequests } }
        set { settings.withLock { $0.engine.coalescesIdenticalRequests = newValue } }
    }

    /// The type of the error object the server sends with a failure, for requests that name no `errorModel` of
    /// their own (NetworkKit's `errorProcessorType`): a non-2xx body that decodes as it throws ``ServerError``, one
    /// that does not throws ``HTTPError``. `nil` (the default): none.
    public var errorModel: (any (Decodable & Error).Type)? {
        get { settings.withLock { $0.engine.errorModel } }
        set { settings.withLock { $0.engine.errorModel = newValue } }
    }

    /// Whether every request's 2xx body is first tried as its error model, for servers that answer 200 with an error
    /// object: one that decodes as it throws ``ServerError``. Off by default; a request can ask for it alone.
    public var decodesErrorModelOnSuccess: Bool {
        get { settings.withLock { $0.engine.decodesErrorModelOnSuccess } }
        set { settings.withLock { $0.engine.decodesErrorModelOnSuccess = newValue } }
    }

    /// How redirects are followed: the engine decides each hop the same on every transport (``RedirectPolicy``). Up
    /// to 10 hops, never `https` to `http`, nothing but a few content-negotiation fields to another origin, by
    /// default.
    public var redirectPolicy: RedirectPolicy {
        get { settings.withLock { $0.engine.redirectPolicy } }
        set { settings.withLock { $0.engine.redirectPolicy = newValue } }
    }

    /// The origins the manager's credentials go to: the `accessToken`, plugins' keys, default headers that carry a
    /// credential (``CredentialScope``). By default the base URL's origin alone: a request that names another
    /// `baseURL` goes without them.
    public var credentialScope: CredentialScope {
        get { settings.withLock { $0.engine.credentialScope } }
        set { settings.withLock { $0.engine.credentialScope = newValue } }
    }

    /// Header fields and query items of your own that carry a credential (an API key in ``defaultHeaders``), besides
    /// `Authorization`, `Proxy-Authorization`, `Cookie`, secret-looking names and what plugins declare: kept to
    /// ``credentialScope``, never carried across a redirect to another origin, hidden in logs. None by default.
    public var credentialFields: CredentialFields {
        get { settings.withLock { $0.engine.credentialFields } }
        set { settings.withLock { $0.engine.credentialFields = newValue } }
    }

    /// Headers sent with every request that does not set the same name itself (case-insensitively). A default
    /// `Accept` or `User-Agent` replaces NetKit's; `Content-Type` always comes from the request. An invalid name or
    /// value fails every request with ``NetworkError/invalidHeader(name:)`` before anything is sent. None by default.
    public var defaultHeaders: [String: String] {
        get { settings.withLock { $0.engine.builder.defaultHeaders } }
        set { settings.withLock { $0.engine.builder.defaultHeaders = newValue } }
    }

    /// Encodes the JSON bodies of requests that do not implement `jsonEncoder`: a plain `JSONEncoder` until you set
    /// one. The instance is kept, so `manager.defaultEncoder.dateEncodingStrategy = .iso8601` applies too.
    public var defaultEncoder: JSONEncoder {
        get {
            settings.withLock { settings in
                if let encoder = settings.engine.defaultEncoder { return encoder }
                let encoder = JSONEncoder()
                settings.engine.defaultEncoder = encoder
                return encoder
            }
        }
        set { settings.withLock { $0.engine.defaultEncoder = newValue } }
    }

    /// Decodes the JSON responses of requests that do not implement `jsonDecoder`: a plain `JSONDecoder` until you
    /// set one. ``responseDecoderProvider`` still comes first for the requests that allow it (see
    /// ``Endpoint/jsonDecoder``). The instance is kept, so `manager.defaultDecoder.keyDecodingStrategy = …` applies too.
    public var defaultDecoder: JSONDecoder {
        get {
            settings.withLock { settings in
                if let decoder = settings.engine.defaultDecoder { return decoder }
                let decoder = JSONDecoder()
                settings.engine.defaultDecoder = decoder
                return decoder
            }
        }
        set { settings.withLock { $0.engine.defaultDecoder = newValue } }
    }

    /// How requests that do not implement `retryPolicy` retry failed attempts; `nil` (the default): they do not.
    public var defaultRetryPolicy: RetryPolicy? {
        get { settings.withLock { $0.engine.defaultRetryPolicy } }
        set { settings.withLock { $0.engine.defaultRetryPolicy = newValue } }
    }

    /// Plugins that take part in every request (`send` and `stream`), before each request's own `plugins`
    /// of the same priority.
    public var plugins: [any Plugin] {
        get { settings.withLock { $0.engine.plugins } }
        set { settings.withLock { $0.engine.plugins = newValue } }
    }

    /// Where NetKit logs: `os.Logger` under `loggerSubsystem` on Apple platforms, standard error elsewhere, at the
    /// level `NETKIT_LOG_LEVEL` names (`error` by default). Replace it to send lines to your own sink.
    public var logger: NetworkLogger {
        get { settings.withLock { $0.logging.logger } }
        set { settings.withLock { $0.logging = $0.logging.with(logger: newValue) } }
    }

    /// The logging plugin every request runs: replace it to log `curl` commands or hide more names.
    public var logging: LoggingPlugin {
        get { settings.withLock { $0.logging } }
        set { settings.withLock { $0.logging = newValue } }
    }

    /// Adds a `User-Agent` header to every request that does not set one.
    public var userAgentConfiguration: UserAgentConfiguration? {
        get { settings.withLock { $0.userAgentConfiguration } }
        set { settings.withLock { $0.userAgentConfiguration = newValue } }
    }

    /// The coordinator behind ``tokenRefresher``, to inspect refreshes (for example in tests).
    public var tokenRefreshCoordinator: TokenRefreshCoordinator? {
        settings.withLock { $0.coordinator }
    }

    /// Sends `request` and decodes its response.
    /// - Parameters:
    ///   - request: The request to send.
    ///   - accessToken: Read before every attempt; a non-empty token goes out as `Authorization: Bearer`
    ///     unless the request sets its own `Authorization`.
    /// - Throws: ``NetworkError`` for invalid requests (before anything is sent) and 401s that cannot be
    ///   recovered, the request's `errorDecoder` result, its error model's ``ServerError`` or ``HTTPError`` for other
    ///   failed statuses, `DecodingError` or ``ResponseDecodingError``, transport failures as `URLError`, as EKNetwork reports them (`URLError(.timedOut)` past
    ///   the request's timeout; NetKit's ``TransportError`` beneath, without the failing URL), a plugin's error, and
    ///   `CancellationError` when the calling task is cancelled.
    ///
    /// `send` runs on the caller's actor between network waits (`nonisolated(nonsending)`), so
    /// `accessToken` may read actor-isolated state, such as a `@MainActor` token store, on every attempt.
    nonisolated(nonsending) public func send<T: Endpoint>(
        _ request: T,
        accessToken: (() -> String?)? = nil
    ) async throws -> T.Response {
        let (executors, coordinator) = makeExecutors()
        return try await executors.send.send(
            request, baseURL: baseURL(), accessToken: accessToken, credentials: coordinator)
    }

    /// Sends `request` and returns the decoded value with the response's status and headers and NetKit's
    /// measurements of the request (attempts, retry waits, bytes, timings).
    nonisolated(nonsending) public func response<T: Endpoint>(
        for request: T,
        accessToken: (() -> String?)? = nil
    ) async throws -> NetworkResponse<T.Response> {
        let (executors, coordinator) = makeExecutors()
        return try await executors.send.response(
            for: request, baseURL: baseURL(), accessToken: accessToken, credentials: coordinator)
    }

    /// Sends `request` and returns its body as it arrives: NDJSON, server-sent events, chunked output.
    ///
    /// The same road as ``send(_:accessToken:)``: base URL, path checks, query, headers, `Authorization`,
    /// User-Agent, body and plugins. Then, as EKNetwork documents it: on 401, one token refresh and one resend
    /// before any body byte is handed over (a 401 in the middle of a body is not retried); no `RetryPolicy` and no
    /// progress; a non-2xx body is drained up to 1 MiB (`errorPayloadLimit`; one byte more is
    /// ``StreamingError/errorPayloadTooLarge(limitBytes:)``), then becomes the `errorDecoder` result or
    /// ``HTTPError``. A body cut short by a dropped connection ends its views with an error; breaking out of a
    /// view's loop or cancelling the task cancels the transfer and closes the connection.
    /// - Throws: the errors of `send`, and ``StreamingError/invalidResponse`` for a response that is not HTTP.
    nonisolated(nonsending) public func stream<T: Endpoint>(
        _ request: T,
        accessToken: (() -> String?)? = nil
    ) async throws -> StreamingResponse {
        let (executor, coordinator) = makeExecutor(streaming: true)
        return try await executor.stream(
            request, baseURL: baseURL(), accessToken: accessToken, credentials: coordinator)
    }

    /// Server-sent events from `request` that stay connected for as long as they are iterated, reconnecting with
    /// `Last-Event-ID` after the server's `retry` interval (see ``EventSource``). Each connection takes the
    /// `stream` road, 401 → refresh included.
    ///
    /// Called on an actor (the main actor, say), each connection reads `accessToken` afresh on that actor. Called
    /// outside any actor, `accessToken` is read once, here, and never kept (the source may connect from any task,
    /// where calling a closure that is not `Sendable` could race with its owner); after ``tokenRefresher`` has
    /// renewed the token, the connections send the one it reports when it adopts ``CurrentTokenProviding``, and
    /// otherwise the source ends with ``RenewedTokenUnavailable`` rather than send the rejected token again. Use
    /// ``eventSource(_:tokenProvider:policy:)`` to read a token afresh for each connection from there.
    public func eventSource<T: Endpoint & Sendable>(
        _ request: T,
        accessToken: (() -> String?)? = nil,
        policy: EventSourcePolicy = EventSourcePolicy(),
        isolation: isolated (any Actor)? = #isolation
    ) -> EventSource {
        let (executor, coordinator) = makeExecutor(streaming: true)
        let renewedToken = (tokenRefresher as? any CurrentTokenProviding).map { refresher in
            { @Sendable in refresher.currentAccessToken() }
        }
        return executor.eventSource(
            request, baseURL: baseURL, accessToken: accessToken, renewedToken: renewedToken, credentials: coordinator,
            policy: policy, isolation: isolation
        )
    }

    /// Server-sent events from `request`, like ``eventSource(_:accessToken:policy:isolation:)``, reading the token
    /// from `tokenProvider` afresh for each connection, from whichever task connects.
    public func eventSource<T: Endpoint & Sendable>(
        _ request: T,
        tokenProvider: @escaping @Sendable () -> String?,
        policy: EventSourcePolicy = EventSourcePolicy()
    ) -> EventSource {
        let (executor, coordinator) = makeExecutor(streaming: true)
        return executor.eventSource(
            request, baseURL: baseURL, tokenProvider: tokenProvider, credentials: coordinator, policy: policy)
    }

    /// The engines of `send` and `stream` with one set of settings; shared by reference, so that a request
    /// takes them out of the lock without copying them.
    final class Executors: Sendable {
        let send: RequestExecutor
        let stream: RequestExecutor

        init(send: RequestExecutor, stream: RequestExecutor) {
            self.send = send
            self.stream = stream
        }
    }

    /// The engine with this manager's current settings (the default stack of stages and plugins), over the
    /// streaming transport or the one that sends.
    func makeExecutor(streaming: Bool) -> (RequestExecutor, TokenRefreshCoordinator?) {
        let (executors, coordinator) = makeExecutors()
        return (streaming ? executors.stream : executors.send, coordinator)
    }

    /// Both engines with this manager's current settings, and the token refresh coordinator.
    private func makeExecutors() -> (Executors, TokenRefreshCoordinator?) {
        settings.withLock { settings in
            if let executors = settings.executors { return (executors, settings.coordinator) }
            let executors = Executors(
                send: executor(over: transport, settings), stream: executor(over: streamingTransport, settings))
            settings.executors = executors
            return (executors, settings.coordinator)
        }
    }

    /// An engine over `transport` with the manager's settings: the user's plugins then logging (which runs last
    /// anyway: it logs requests as the others left them), the manager's line, and EKNetwork's errors.
    private func executor(over transport: any HTTPTransport, _ settings: Settings) -> RequestExecutor {
        var configuration = settings.engine
        configuration.plugins.append(settings.logging)
        configuration.line = requestLine
        configuration.presentation = Self.presentation
        return RequestExecutor(transport: transport, configuration: configuration)
    }

    /// EKNetwork reports transport failures as `URLError`: so does the facade, whatever the transport, also as the
    /// last failure of an event source that gave up. Each `URLError` it throws reads as one sentence (kind and host)
    /// and holds no URL: one that came from a session as it is is rebuilt so, its code kept. A path or base URL
    /// NetKit's engine refuses with its rule (``NetworkError/invalidPath(path:rule:)``,
    /// ``NetworkError/invalidBaseURL(url:rule:)``) is ``NetworkError/invalidURL``, as EKNetwork users catch it; the
    /// manager's log line (``logger``, at `error`) names the part and the rule.
    static let presentation = ErrorPresentation { error in
        switch error {
        case let error as TransportError:
            URLError(error)
        case let error as URLError:
            URLError(error.transportError)
        case NetworkError.invalidPath, NetworkError.invalidBaseURL:
            NetworkError.invalidURL
        case EventSourceError.reconnectLimitReached(let attempts, let lastError as TransportError):
            EventSourceError.reconnectLimitReached(attempts: attempts, lastError: URLError(lastError))
        default:
            error
        }
    }

    private static func transports(
        session: any URLSessionProtocol,
        streamingSession: (any URLSessionStreamingProtocol)?
    ) -> (send: any HTTPTransport, stream: any HTTPTransport) {
        let send: any HTTPTransport =
            if let session = session as? URLSession {
                URLSessionTransport(borrowing: session)
            } else {
                SessionProtocolTransport(session: session)
            }
        switch streamingSession {
        case let streaming as URLSession where streaming === session as? URLSession:
            return (send, send)
        case let streaming as URLSession:
            return (send, URLSessionTransport(borrowing: streaming))
        case let streaming?:
            return (send, ByteStreamTransport(session: streaming))
        case nil:
            return (send, session is URLSession ? send : URLSessionTransport(borrowing: URLSession.shared))
        }
    }
}
