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
/// configuration.defaultRetryPolicy = RetryPolicy(maxRetryCount: 2, delay: 0.5)
/// configuration.defaultTimeout = .seconds(30)
/// let manager = NetworkManager(configuration: configuration)
/// ```
///
/// It is the engine's settings (``engine``, a ``RequestExecutor/Configuration``) plus the facade's own: the base URL,
/// the transport, the token refresher, the logging plugin, the `User-Agent`. Each engine setting is read and set here
/// by its own name (`configuration.cookieJar` is `configuration.engine.cookieJar`).
///
/// ``init(baseURL:)`` leaves every other setting at the default a manager built with EKNetwork's initializer has;
/// each is a settable property. Settings that a request can also name are defaults: the request's own value wins.
/// - ``baseURL``: a request's `baseURL` replaces it.
/// - ``defaultEncoder`` and ``defaultDecoder``: a request that implements `jsonEncoder` or `jsonDecoder` keeps its
///   own (a manager's `responseDecoderProvider`, EKNetwork's global decoder, still comes first for the requests that
///   allow it; see ``Endpoint/jsonDecoder``).
/// - ``defaultHeaders``: a request that sets the same name (case-insensitively) sends its own value.
/// - ``RequestExecutor/Configuration/defaultRetryPolicy`` and ``RequestExecutor/Configuration/defaultTimeout``: a
///   request that implements `retryPolicy` or returns a `timeout` keeps its own.
///
/// `JSONEncoder` and `JSONDecoder` are classes (and `Sendable`: they guard their settings with a lock): a copy of a
/// configuration shares them, so changing a strategy on one you hold changes it for every manager built with it.
/// Assign a new coder (`configuration.defaultDecoder = JSONDecoder()`) to keep two configurations apart.
@dynamicMemberLookup
public struct NetworkConfiguration: Sendable {
    /// The URL every request's path is appended to, unless the request names its own `baseURL`.
    public var baseURL: URL
    /// Where requests go, `send` and `stream` alike. By default a ``URLSessionTransport`` with URLSession's default
    /// configuration, shared (like `URLSession.shared`) by every configuration that keeps it.
    public var transport: any HTTPTransport
    /// The engine's settings: limits, timeout, retry policy, coders, cache, cookie jar, coalescing, error model,
    /// redirects, credential scope and fields, the request builder, and the plugins every request runs (before each
    /// request's own of the same priority; the manager adds ``logging`` after them). The manager's
    /// ``NetworkManager/requestLine`` and its way of reporting errors replace ``RequestExecutor/Configuration/line``
    /// and the engine's own.
    public var engine: RequestExecutor.Configuration
    /// Adds a `User-Agent` header to every request that does not set one; `nil` (the default): the engine's
    /// ``RequestBuilder/userAgent``, none unless set there.
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

    /// The refresher, held so that the configuration stays `Sendable` (see `TokenRefresherReference`).
    private var refresher: TokenRefresherReference?

    /// A configuration for `baseURL` with every other setting at its default.
    public init(baseURL: URL) {
        self.baseURL = baseURL
        self.transport = Self.sharedTransport
        self.engine = RequestExecutor.Configuration()
        self.engine.defaultEncoder = JSONEncoder()
        self.engine.defaultDecoder = JSONDecoder()
        self.userAgentConfiguration = nil
        self.logging = LoggingPlugin(logger: NetworkLogger(subsystem: NetworkLogger.placeholderSubsystem))
        self.tokenRefreshPolicy = TokenRefreshPolicy()
        self.holdsRequestsDuringRefresh = false
    }

    /// An engine setting by its own name: `configuration.defaultTimeout` is `configuration.engine.defaultTimeout`.
    public subscript<Value>(dynamicMember setting: WritableKeyPath<RequestExecutor.Configuration, Value>) -> Value {
        get { engine[keyPath: setting] }
        set { engine[keyPath: setting] = newValue }
    }

    /// Encodes the JSON bodies (``RequestBody/init(encodable:contentType:)``) of requests that do not implement
    /// `jsonEncoder` (``RequestExecutor/Configuration/defaultEncoder``). A plain `JSONEncoder()` by default.
    public var defaultEncoder: JSONEncoder {
        get { engine.defaultEncoder ?? JSONEncoder() }
        set { engine.defaultEncoder = newValue }
    }
    /// Decodes the JSON responses of requests that do not implement `jsonDecoder`
    /// (``RequestExecutor/Configuration/defaultDecoder``). A plain `JSONDecoder()` by default.
    public var defaultDecoder: JSONDecoder {
        get { engine.defaultDecoder ?? JSONDecoder() }
        set { engine.defaultDecoder = newValue }
    }
    /// Headers sent with every request that does not set the same name itself (the engine's
    /// ``RequestBuilder/defaultHeaders``). None by default.
    public var defaultHeaders: [String: String] {
        get { engine.builder.defaultHeaders }
        set { engine.builder.defaultHeaders = newValue }
    }

    /// The default transport, made on first use: one URLSession for every configuration that keeps the default,
    /// rather than one per configuration value (most of which are copies, or get a transport of their own).
    private static let sharedTransport = URLSessionTransport()
}
