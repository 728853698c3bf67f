#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a request's connection is made: TLS, the proxy, the HTTP version. Set once for every request
/// (``RequestExecutor/Configuration/connection``, `NetworkConfiguration.connection`) or for one request
/// (``Endpoint/connection``, which replaces the configuration's as a whole).
///
/// The engine reads the proxy environment for each request and each redirect hop, then asks the transport whether it
/// can apply the rest (``HTTPTransport/unsupportedSetting(in:for:)``): one that cannot fails the request with
/// ``UnsupportedConnectionSettingError`` before anything is sent.
///
/// ```swift
/// configuration.connection.tls.trustedRoots = .systemAnd([internalCA])
/// configuration.connection.proxy = .fromEnvironment()         // HTTP_PROXY, HTTPS_PROXY, NO_PROXY
/// configuration.connection.httpVersion = .http1Only
/// ```
public struct ConnectionSettings: Sendable, Hashable, CustomStringConvertible {
    /// TLS: trusted roots, client identity, minimum version, pins.
    public var tls: TLSSettings
    /// The proxy; `nil` (the default): the transport's own choice (URLSession: the system's settings, which on Linux
    /// are libcurl's reading of the environment; AsyncHTTPClient: its client's configuration).
    public var proxy: ProxySettings?
    /// Which HTTP versions the connection may speak; ``HTTPVersionPolicy/automatic`` by default.
    public var httpVersion: HTTPVersionPolicy

    /// Settings with every value at the transport's default unless named here.
    public init(
        tls: TLSSettings = TLSSettings(), proxy: ProxySettings? = nil, httpVersion: HTTPVersionPolicy = .automatic
    ) {
        self.tls = tls
        self.proxy = proxy
        self.httpVersion = httpVersion
    }

    /// Whether every setting is the transport's default: nothing for a transport to apply or refuse.
    public var isTransportDefault: Bool {
        tls.isDefault && proxy == nil && httpVersion == .automatic
    }

    /// The settings that are not the transport's default, in the order a refusal names them.
    package var requestedSettings: [UnsupportedConnectionSettingError.Setting] {
        var settings: [UnsupportedConnectionSettingError.Setting] = []
        if tls.trustedRoots != .system { settings.append(.trustedRoots) }
        if tls.clientIdentity != nil { settings.append(.clientIdentity) }
        if tls.minimumVersion != nil { settings.append(.minimumTLSVersion) }
        if !tls.pins.isEmpty { settings.append(.certificatePins) }
        if proxy != nil { settings.append(.proxy) }
        if httpVersion != .automatic { settings.append(.httpVersion) }
        return settings
    }

    /// The TLS settings that bear on a request for `head`: none for a URL that is not `https` (no TLS to apply them
    /// to), and only the pins whose pattern matches its host. A transport that cannot apply TLS settings refuses
    /// only these: a pin for another host costs this request nothing.
    package func tls(for head: HTTPRequestHead) -> TLSSettings {
        guard head.scheme.lowercased() == "https" else { return TLSSettings() }
        guard !tls.pins.isEmpty else { return tls }
        var relevant = tls
        let host = head.host
        relevant.pins = tls.pins.filter { $0.matches(host: host) }
        return relevant
    }

    /// The settings a request to `url` is sent with: the proxy environment read for it (``ProxySettings/route(for:)``).
    /// - Throws: ``ConnectionSettingError`` when the environment names a proxy that is not a valid address.
    package func resolved(for url: URL?) throws -> ConnectionSettings {
        guard case .environment = proxy, let url else { return self }
        var resolved = self
        resolved.proxy = try proxy?.route(for: url)
        return resolved
    }

    /// The settings that differ from the default, in words; never a private key or a proxy password.
    public var description: String {
        var parts: [String] = []
        if !tls.isDefault { parts.append(tls.description) }
        if let proxy { parts.append("proxy: \(proxy)") }
        if httpVersion == .http1Only { parts.append("HTTP/1.1 only") }
        return parts.isEmpty ? "the transport's defaults" : parts.joined(separator: "; ")
    }
}
