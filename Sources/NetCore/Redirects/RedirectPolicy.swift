#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the engine follows redirects: one decision per hop, the same on every transport.
///
/// Transports hand every `3xx` back; the engine decides each hop (``RequestExecutor/Configuration/redirectPolicy``). By default
/// it follows up to 10 hops of `301`, `302`, `303`, `307` and `308` with a `Location`, and:
/// - follows only `http` and `https` targets (a `file:` or `data:` `Location` fails the request);
/// - never follows `https` to `http` (``allowsInsecureDowngrade``);
/// - carries to another origin only the fields ``crossOriginFields`` names: no credential, no custom header, no
///   body (a `307` or `308` to another origin that would need the body fails the request);
/// - turns `303` (any method but `HEAD`), and `301`/`302` after a `POST`, into a `GET` without body or
///   `Content-*` fields; `307` and `308` send the same method and body again, when the body can be read again;
/// - fails a chain longer than ``maximumHops``, or one that comes back to a URL it already visited with nothing
///   changed (no cookie set in between), with ``TransportError/Kind/tooManyRedirects``.
///
/// Each hop goes through the engine's stages like any attempt: the credential (only to origins the
/// ``CredentialScope`` allows), the plugins (`willSend`, `didReceive` with ``PluginContext/Reason/redirected(status:)``),
/// the cookie jar (which keeps every hop's `Set-Cookie`), the cache (which files each response under the URL it
/// came from) and the logs.
///
/// ```swift
/// var policy = RedirectPolicy()
/// policy.refusesPrivateAddresses = true          // no hop to 127.0.0.1, 10.x, 169.254.169.254, fe80::…
/// policy.decide = { hop in
///     hop.to.host() == "cdn.example.com" ? .follow(hop.request) : .deliver
/// }
/// executor.redirectPolicy = policy
/// ```
public struct RedirectPolicy: Sendable {
    /// The most hops a request follows; past them it fails with ``TransportError/Kind/tooManyRedirects``. 0
    /// follows none: every `3xx` reaches the caller (as an `HTTPError`, or as the response of a request that
    /// accepts it). 10 by default; at most ``hopLimit``.
    public var maximumHops: Int {
        didSet { maximumHops = min(max(0, maximumHops), Self.hopLimit) }
    }
    /// Whether a hop from `https` to `http` is followed (credentials never go with it). Off by default: such a
    /// hop fails with ``RedirectError/Reason/insecureDowngrade``.
    public var allowsInsecureDowngrade: Bool
    /// Whether hops to loopback, private, link-local (the cloud metadata address `169.254.169.254` among them),
    /// unique-local, shared, multicast and unspecified addresses fail with ``RedirectError/Reason/privateAddress(_:)``.
    /// Names are resolved to check them (`localhost` and `*.localhost` always count as loopback). Off by default;
    /// turn it on in a server that follows URLs it was handed. A name that resolves differently when the transport
    /// connects (DNS rebinding) is not caught: pin the addresses in the resolver, or check them in a proxy, where that
    /// matters.
    public var refusesPrivateAddresses: Bool
    /// The header fields (any case) a hop to another origin carries; every other field stays behind.
    /// ``defaultCrossOriginFields`` by default. A credential field is never carried, whatever this says.
    public var crossOriginFields: Set<String> {
        didSet { crossOriginFields = Set(crossOriginFields.map(HeaderValidation.lowercased)) }
    }
    /// Decides each hop the rules above allow: follow it (as proposed, or with a request of your own), hand the
    /// `3xx` to the caller, or refuse it. The rules are checked again on the request you return. `nil` (the
    /// default): every allowed hop is followed.
    public var decide: (@Sendable (RedirectHop) async throws -> RedirectDecision)?

    /// Follows up to 10 hops with the rules above.
    public init(
        maximumHops: Int = 10,
        allowsInsecureDowngrade: Bool = false,
        refusesPrivateAddresses: Bool = false,
        crossOriginFields: Set<String> = RedirectPolicy.defaultCrossOriginFields,
        decide: (@Sendable (RedirectHop) async throws -> RedirectDecision)? = nil
    ) {
        self.maximumHops = min(max(0, maximumHops), Self.hopLimit)
        self.allowsInsecureDowngrade = allowsInsecureDowngrade
        self.refusesPrivateAddresses = refusesPrivateAddresses
        self.crossOriginFields = Set(crossOriginFields.map(HeaderValidation.lowercased))
        self.decide = decide
    }

    /// The default: up to 10 hops, the rules above.
    public static let `default` = RedirectPolicy()

    /// Follows no redirect: every `3xx` reaches the caller.
    public static let never = RedirectPolicy(maximumHops: 0)

    /// 50: the most hops any policy follows, so that no server can keep a request going round.
    public static let hopLimit = 50

    /// What a hop to another origin carries: `Accept`, `Accept-Encoding`, `Accept-Language`, `User-Agent`,
    /// `Cache-Control`, `Pragma`, `Range`, `If-Range`.
    public static let defaultCrossOriginFields: Set<String> = [
        "accept", "accept-encoding", "accept-language", "user-agent", "cache-control", "pragma", "range", "if-range",
    ]

    /// Whether the engine follows any redirect.
    package var followsRedirects: Bool { maximumHops > 0 }
}
