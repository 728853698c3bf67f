#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RequestExecutor {
    /// Every setting of the engine, as one value: the engine holds it once (``RequestExecutor/configuration``), and
    /// `NetworkManager` keeps one and hands it to the engines it builds.
    ///
    /// ```swift
    /// var configuration = RequestExecutor.Configuration(plugins: [RequestIDPlugin()])
    /// configuration.defaultTimeout = .seconds(30)
    /// configuration.cookieJar = CookieJar()
    /// let executor = RequestExecutor(transport: URLSessionTransport(), configuration: configuration)
    /// ```
    ///
    /// Settings that a request can also name (its timeout, retry policy, coders, error model) are defaults: the
    /// request's own value wins.
    public struct Configuration: Sendable {
        /// The request builder: the `User-Agent`, the default header fields, the idle timeout.
        public var builder: RequestBuilder
        /// A decoder that replaces each request's `jsonDecoder` when the request allows it.
        public var responseDecoderProvider: (@Sendable () -> JSONDecoder)?
        /// Plugins that take part in every request, before the request's own.
        public var plugins: [any Plugin] {
            didSet { pluginList = PluginList(ordered: RequestExecutor.ordered(plugins, [])) }
        }
        /// ``plugins`` in order with their hooks, worked out once per change rather than per request.
        private(set) var pluginList: PluginList
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
        /// Answers and revalidates `send`'s GET requests from memory (RFC 9111, see ``ResponseCache``), and forgets
        /// what a successful `POST`, `PUT`, `PATCH` or `DELETE` changed, whichever way it was sent; `nil` (the
        /// default): no cache.
        public var responseCache: ResponseCache?
        /// Stores every response's `Set-Cookie` and sends `Cookie` on later requests (RFC 6265); `nil` (the
        /// default): no cookies are kept.
        public var cookieJar: CookieJar?
        /// Whether identical GET and HEAD requests of `send` in flight at once share one network call. Off by
        /// default.
        ///
        /// Identical: the same method, URL and header fields as they go out (the credential and cookies included),
        /// through the same transport with the same cookie jar, so callers with different tokens never share.
        /// Correlation fields (a request ID, trace context: ``TransportRequest/markCorrelationHeader(_:)``) do not
        /// count: the call goes out with the values of the caller that started it, and each caller's plugins are
        /// still given its own request. Each caller decodes the shared response itself; a caller that is cancelled
        /// gets `CancellationError` at once while the others go on, and the call is cancelled only when every caller
        /// has been. Copies of this configuration (and of engines holding it) share the calls in flight (those over
        /// another transport never share a call); turning it off and on again starts afresh.
        public var coalescesIdenticalRequests: Bool {
            get { coalescer != nil }
            set { if newValue != (coalescer != nil) { coalescer = newValue ? RequestCoalescer() : nil } }
        }
        /// The calls in flight that identical requests share, when ``coalescesIdenticalRequests`` is on.
        package private(set) var coalescer: RequestCoalescer?
        /// The most requests sent to one host at once; the others wait for a slot, in the order they came. `nil` (the
        /// default): no limit. A value below 1 counts as 1.
        ///
        /// A host is an origin: scheme, host and port (`https://api.example.com` and `http://api.example.com` have
        /// slots of their own). A request takes a slot for each attempt, just before it is handed to the transport
        /// (after the cache, the credential and the plugins' hooks), and keeps it while the transport sends it, a
        /// transparent resend included: for `send`, until its body is read; for `stream` (and a generated OpenAPI
        /// client's calls), until its head has arrived, so that a body read slowly, or never, does not hold a slot.
        /// A retry, a redirect hop or a resend after a renewed credential takes a slot again. A request that waits
        /// is told to observers as `queued` then `dequeued`; its own timeout and cancellation end the wait, and so
        /// does ``queueTimeout``.
        ///
        /// Use it to stay within what a server allows one client, or to keep a burst of requests from opening more
        /// connections than you want; identical requests that ``coalescesIdenticalRequests`` lets share one call
        /// take one slot. Copies of this configuration (and of engines holding it) share the slots; setting this or
        /// ``queueTimeout`` to another value starts afresh (requests holding a slot of the old line no longer count).
        public var maximumRequestsPerHost: Int? {
            didSet { if maximumRequestsPerHost != oldValue { makeRequestQueue() } }
        }
        /// How long a request may wait for a slot (``maximumRequestsPerHost``) before it fails with
        /// ``QueueTimeoutError``, an error that says the server was never asked. `nil` (the default): a request waits
        /// as long as its own timeout allows. Nothing without ``maximumRequestsPerHost``.
        public var queueTimeout: Duration? {
            didSet { if queueTimeout != oldValue { makeRequestQueue() } }
        }
        /// The request slots of every host, shared by copies, when ``maximumRequestsPerHost`` is set.
        package private(set) var requestQueue: RequestQueue?
        /// The type of the error object the server sends with a failure, for requests that name no `errorModel` of
        /// their own: a non-2xx body that decodes as it throws ``ServerError``; `nil` (the default): none.
        public var errorModel: (any (Decodable & Error).Type)?
        /// Whether every request's 2xx body is first tried as its error model (the request's or ``errorModel``),
        /// for servers that answer 200 with an error object. A request can ask for it alone with its own
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
        /// Bounds the retries of every request together, per origin, so that retries cannot multiply the load on a
        /// failing server (see ``RetryBudget``): by default a `RetryBudget()` of this configuration's own (retries
        /// at most 20 % of the requests to an origin, at least 10 per 10 s), shared by every request of the
        /// configuration and of its copies (the engines and managers built with it included); a configuration
        /// made apart has a budget of its own. A retry it refuses fails the request with its own error and sets
        /// ``RequestMetrics/retryBudgetExhausted``. `nil`: no budget, each request retries as its policy says.
        public var retryBudget: RetryBudget? = RetryBudget()
        /// Header fields and query items of your own that carry a credential (an API key in
        /// ``RequestBuilder/defaultHeaders``, a signature in the query), besides ``CredentialFields/standard`` and
        /// what plugins declare: they go only where ``credentialScope`` allows, never across a redirect to another
        /// origin, and logs hide them. None by default.
        public var credentialFields = CredentialFields.none
        /// The origins requests may carry the engine's credentials to; by default the base URL's alone (see
        /// ``CredentialScope``).
        public var credentialScope = CredentialScope.baseURLOrigin
        /// How redirects are followed: each hop decided by the engine, the same on every transport (see
        /// ``RedirectPolicy``). Up to 10 hops, never `https` to `http`, nothing but
        /// ``RedirectPolicy/crossOriginFields`` to another origin, by default.
        public var redirectPolicy = RedirectPolicy.default
        /// How connections are made: TLS (trusted roots, client identity, minimum version, pins), the proxy (one of
        /// your own, or the `HTTP_PROXY`/`HTTPS_PROXY`/`NO_PROXY` environment read the same on every transport), the
        /// HTTP version. The transport's own settings by default. A transport that cannot apply a setting fails the
        /// request with ``UnsupportedConnectionSettingError`` before anything is sent (see ``ConnectionSettings``).
        public var connection = ConnectionSettings()
        /// How the caller sees the errors the engine ends with (a facade may speak other types).
        package var presentation = ErrorPresentation.native

        /// A configuration with every setting at its default unless named here.
        public init(
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
            self.builder = builder
            self.responseDecoderProvider = responseDecoderProvider
            self.plugins = plugins
            self.pluginList = PluginList(ordered: RequestExecutor.ordered(plugins, []))
            self.errorPayloadLimit = errorPayloadLimit
            self.responseLimit = responseLimit
            self.line = line
            self.defaultTimeout = defaultTimeout
            self.clock = clock
            self.randomUnit = randomUnit
        }

        /// A new line for ``maximumRequestsPerHost`` and ``queueTimeout`` as they are now (none without a limit):
        /// a new object, so that copies made before keep theirs.
        private mutating func makeRequestQueue() {
            requestQueue = maximumRequestsPerHost.map {
                RequestQueue(maximumPerOrigin: $0, queueTimeout: queueTimeout)
            }
        }
    }
}
