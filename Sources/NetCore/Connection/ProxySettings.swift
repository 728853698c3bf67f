#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How requests reach their server: directly, through a proxy, or as the environment says.
///
/// ```swift
/// let settings = try ProxyServer.settings(fromURL: "http://alice:secret@proxy.example:3128")
/// let fromEnvironment = ProxySettings.fromEnvironment()
/// try fromEnvironment.route(for: URL(string: "https://api.example.com")!)  // .http(…), or .direct under NO_PROXY
/// ```
public enum ProxySettings: Sendable, Hashable {
    /// No proxy, whatever the environment says.
    case direct
    /// An HTTP proxy: requests to `http` URLs are sent to it in absolute form, requests to `https` URLs through a
    /// CONNECT tunnel, so TLS still runs end to end with the server.
    case http(ProxyServer)
    /// A SOCKS5 proxy, given the host name to resolve, so that names only the proxy's network knows still work.
    case socks5(ProxyServer)
    /// `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY`, read as Go's net/http reads them (``ProxyEnvironment``).
    case environment(ProxyEnvironment)

    /// `.environment(.current)`: the process's variables as they are now, fixed in the value returned.
    public static func fromEnvironment() -> ProxySettings {
        .environment(.current)
    }

    /// What a request to `url` uses: `.direct`, `.http` or `.socks5`, never `.environment`, which is resolved here
    /// with Go's `(*httpproxy.Config).ProxyFunc()` rules (``ProxyEnvironment``). An explicit `.http` or `.socks5` applies to every URL, `localhost`
    /// included, as an explicitly set proxy does in Go and curl.
    ///
    /// - Throws: ``ConnectionSettingError`` naming `HTTP_PROXY` or `HTTPS_PROXY` when the environment names a proxy
    ///   that is not a valid address, and the request would use it.
    public func route(for url: URL) throws -> ProxySettings {
        switch self {
        case .direct, .http, .socks5: self
        case .environment(let environment): try environment.proxy(for: url) ?? .direct
        }
    }
}
