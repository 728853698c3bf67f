import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything a ``NetworkManager`` is made of, as one value: build it once, adjust what differs, hand it to
/// ``NetworkManager/init(configuration:)``.
///
/// ```swift
/// var configuration = NetworkConfiguration(baseURL: URL(string: "https://api.example.com/v2")!)
/// configuration.defaultHeaders = ["X-Client": "ios"]
/// configuration.defaultDecoder.keyDecodingStrategy = .convertFromSnakeCase
/// configuration.retryPolicy = RetryPolicy(maxRetryCount: 2, delay: 0.5)
/// configuration.timeout = .seconds(30)
/// let manager = NetworkManager(configuration: configuration)
/// ```
///
/// ``init(baseURL:)`` leaves every other setting at the default a manager built with EKNetwork's initializer has;
/// each is a settable property. Settings that a request can also name are defaults: the request's own value wins.
/// - ``baseURL``: a request's `baseURL` replaces it.
/// - ``defaultEncoder`` and ``defaultDecoder``: a request that implements `jsonEncoder` or `jsonDecoder` keeps its
///   own (a manager's `responseDecoderProvider`, EKNetwork's global decoder, still comes first for the requests that
///   allow it; see ``Endpoint/jsonDecoder``).
/// - ``defaultHeaders``: a request that sets the same name (case-insensitively) sends its own value.
/// - ``retryPolicy`` and ``timeout``: a request that implements `retryPolicy` or returns a `timeout` keeps its own.
///
/// `JSONEncoder` and `JSONDecoder` are classes (and `Sendable`: they guard their settings with a lock): a copy of a
/// configuration shares them, so changing a strategy on one you hold changes it for every manager built with it.
/// Assign a new coder (`configuration.defaultDecoder = JSONDecoder()`) to keep two configurations apart.
public struct NetworkConfiguration: Sendable {
    /// The URL every request's path is appended to, unless the request names its own `baseURL`.
    public var baseURL: URL
    /// Where requests go, `send` and `stream` alike. By default a ``URLSessionTransport`` with URLSession's default
    /// configuration, shared (like `URLSession.shared`) by every configuration that keeps it.
    public var transport: any HTTPTransport
    /// Encodes the JSON bodies (``RequestBody/init(encodable:contentType:)``) of requests that do not implement
    /// `jsonEncoder`. A plain `JSONEncoder()` by default.
    public var defaultEncoder: JSONEncoder
    /// Decodes the JSON responses of requests that do not implement `jsonDecoder`. A plain `JSONDecoder()` by default.
    public var defaultDecoder: JSONDecoder
    /// Headers sent with every request that does not set the same name itself; see
    /// ``RequestBuilder/defaultHeaders``. None by default.
    public var defaultHeaders: [String: String]
    /// Plugins that take part in every request, before each request's own plugins of the same priority.
    public var plugins: [any Plugin]
    /// How requests that do not implement `retryPolicy` retry failed attempts; `nil` (the default): they do not.
    public var retryPolicy: RetryPolicy?
    /// The longest a request that names no `timeout` of its own may take, all attempts, retry waits and token refresh
    /// included (``NetworkManager/requestTimeout``); `nil` (the default): no such limit.
    public var timeout: Duration?
    /// The largest successful body `send` reads into memory (``NetworkManager/responseSizeLimit``). 64 MiB by default.
    public var responseSizeLimit: Int
    /// The most bytes of an error body kept (``NetworkManager/errorPayloadLimit``). 1 MiB by default.
    public var errorPayloadLimit: Int
    /// Adds a `User-Agent` header to every request that does not set one; `nil` (the default): none.
    public var userAgentConfiguration: UserAgentConfiguration?
    /// The logging plugin every request runs (``NetworkManager/logging``): by default a ``NetworkLogger`` under
    /// EKNetwork's placeholder subsystem, at the level `NETKIT_LOG_LEVEL` names.
    public var logging: LoggingPlugin
    /// Refreshes the token on 401 (``NetworkManager/tokenRefresher``); `nil` (the default): a 401 fails the request.
    ///
    /// Every manager built from this configuration calls the same object; NetKit never enters it from two threads at
    /// once within one manager, so sharing it between managers is your own sharing, and it must be safe for that.
    public var tokenRefresher: (any TokenRefreshProvider)? {
        get { refresher?.provider }
        set { refresher = newValue.map(TokenRefresherReference.init) }
    }
    /// How often the token may be refreshed (``NetworkManager/tokenRefreshPolicy``).
    public var tokenRefreshPolicy: TokenRefreshPolicy
    /// Whether requests that start during a token refresh wait for it (``NetworkManager/holdsRequestsDuringRefresh``).
    /// Off by default.
    public var holdsRequestsDuringRefresh: Bool
    /// Answers and revalidates GET requests from memory (``NetworkManager/responseCache``); `nil` (the
    /// default): every request goes to the network.
    public var responseCache: ResponseCache?
    /// Keeps cookies across requests (``NetworkManager/cookieJar``); `nil` (the default): none are kept.
    public var cookieJar: CookieJar?
    /// Whether identical GET and HEAD requests in flight at once share one network call
    /// (``NetworkManager/coalescesIdenticalRequests``). Off by default.
    public var coalescesIdenticalRequests: Bool
    /// The type of the error object the server sends with a failure, for requests that name no `errorModel` of their
    /// own (``NetworkManager/errorModel``): a non-2xx body that decodes as it throws ``ServerError``. `nil` by default.
    public var errorModel: (any (Decodable & Error).Type)?
    /// Whether 2xx bodies are first tried as the error model (``NetworkManager/decodesErrorModelOnSuccess``). Off by
    /// default.
    public var decodesErrorModelOnSuccess: Bool

    /// How redirects are followed (``NetworkManager/redirectPolicy``): up to 10 hops decided by the engine, never
    /// `https` to `http`, no credential to another origin, by default.
    public var redirectPolicy: RedirectPolicy
    /// The origins the credentials go to (``NetworkManager/credentialScope``): the base URL's alone by default.
    public var credentialScope: CredentialScope
    /// Header fields and query items of your own that carry a credential (``NetworkManager/credentialFields``). None
    /// by default.
    public var credentialFields: CredentialFields

    /// The refresher, held so that the configuration stays `Sendable` (see `TokenRefresherReference`).
    private var refresher: TokenRefresherReference?

    /// A configuration for `baseURL` with every other setting at its default.
    public init(baseURL: URL) {
        self.baseURL = baseURL
        self.transport = Self.sharedTransport
        self.defaultEncoder = JSONEncoder()
        self.defaultDecoder = JSONDecoder()
        self.defaultHeaders = [:]
        self.plugins = []
        self.retryPolicy = nil
        self.timeout = nil
        self.responseSizeLimit = RequestExecutor.defaultResponseLimit
        self.errorPayloadLimit = RequestExecutor.defaultErrorPayloadLimit
        self.userAgentConfiguration = nil
        self.logging = LoggingPlugin(logger: NetworkLogger(subsystem: NetworkLogger.placeholderSubsystem))
        self.tokenRefreshPolicy = TokenRefreshPolicy()
        self.holdsRequestsDuringRefresh = false
        self.responseCache = nil
        self.cookieJar = nil
        self.coalescesIdenticalRequests = false
        self.errorModel = nil
        self.decodesErrorModelOnSuccess = false
        self.redirectPolicy = .default
        self.credentialScope = .baseURLOrigin
        self.credentialFields = .none
    }

    /// The default transport, made on first use: one URLSession for every configuration that keeps the default,
    /// rather than one per configuration value (most of which are copies, or get a transport of their own).
    private static let sharedTransport = URLSessionTransport()
}
