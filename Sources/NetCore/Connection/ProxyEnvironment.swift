#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY`, read with the rules of Go's `golang.org/x/net/http/httpproxy` (which
/// `net/http.ProxyFromEnvironment` uses), so that one environment sends NetKit, Go tools and the like through the
/// same proxies and exempts the same hosts.
///
/// The values are kept as text and read when a request asks (``ProxySettings/route(for:)``), so a malformed value fails the
/// requests it applies to with a ``ConnectionSettingError`` naming the variable, instead of being dropped silently
/// as Go drops it.
///
/// Its `description`, `String(reflecting:)` and `dump` replace a password in a proxy URL with `REDACTED`.
public struct ProxyEnvironment: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The proxy for `http` URLs, as `HTTP_PROXY` is written: `http://proxy:3128`, `proxy:3128`, `socks5://proxy`.
    public var httpProxy: String?
    /// The proxy for `https` URLs, as `HTTPS_PROXY` is written. `http` URLs never use it, nor `https` ones
    /// ``httpProxy``.
    public var httpsProxy: String?
    /// The hosts that go direct, as `NO_PROXY` is written: comma-separated `*`, `example.com` (and its sub-domains),
    /// `.example.com` and `*.example.com` (sub-domains only), `10.0.0.0/8`, `192.168.1.1`, `[2001:db8::1]:443`,
    /// each name or address optionally with a port.
    public var noProxy: String?

    /// Values given directly, as the variables would hold them; `nil` or empty for none.
    public init(httpProxy: String? = nil, httpsProxy: String? = nil, noProxy: String? = nil) {
        self.httpProxy = httpProxy
        self.httpsProxy = httpsProxy
        self.noProxy = noProxy
    }

    /// The values in `variables`, as Go's `httpproxy.FromEnvironment` picks them: `HTTP_PROXY` then `http_proxy`,
    /// `HTTPS_PROXY` then `https_proxy`, `NO_PROXY` then `no_proxy`, the first that is not empty.
    ///
    /// With a non-empty `REQUEST_METHOD` the process is a CGI script, whose `HTTP_PROXY` the client sets with a
    /// `Proxy:` request header ("httpoxy", CVE-2016-5385), so neither spelling of it is read: `http` URLs go direct.
    /// (Go keeps the value and fails those requests instead.)
    public init(variables: [String: String]) {
        func first(_ names: String...) -> String? {
            names.lazy.compactMap { variables[$0] }.first { !$0.isEmpty }
        }
        let isCGI = variables["REQUEST_METHOD"].map { !$0.isEmpty } ?? false
        self.init(
            httpProxy: isCGI ? nil : first("HTTP_PROXY", "http_proxy"),
            httpsProxy: first("HTTPS_PROXY", "https_proxy"),
            noProxy: first("NO_PROXY", "no_proxy")
        )
    }

    /// The process's environment as it is now; read again on every call, so a change to it shows in the next request
    /// that asks.
    public static var current: ProxyEnvironment {
        ProxyEnvironment(variables: ProcessInfo.processInfo.environment)
    }

    /// The proxy a request to `url` goes through, or `nil` for a direct connection, decided as Go's
    /// `(*httpproxy.Config).ProxyFunc()` decides it.
    ///
    /// An `https` URL uses ``httpsProxy``, an `http` URL ``httpProxy``, any other scheme none. A value without a
    /// scheme is an HTTP proxy. The host `localhost` and loopback addresses never use a proxy, nor a host that
    /// ``noProxy`` lists; the port compared with a `NO_PROXY` entry's is the URL's, or 80 for `http` and 443 for
    /// `https`. A value that is empty or only white space counts as unset.
    ///
    /// - Returns: ``ProxySettings/http(_:)`` or ``ProxySettings/socks5(_:)``, or `nil`.
    /// - Throws: ``ConnectionSettingError`` whose setting is `HTTP_PROXY` or `HTTPS_PROXY` when the value that applies
    ///   is not a proxy NetKit can use (see ``ProxyServer/settings(fromURL:)``); only when the request would use it,
    ///   so a broken `HTTPS_PROXY` does not stop requests to `localhost` or to hosts `NO_PROXY` lists.
    package func proxy(for url: URL) throws -> ProxySettings? {
        let url = url.absoluteURL
        let value: String?
        let variable: String
        let defaultPort: Int
        switch url.scheme?.lowercased() {
        case "https": (value, variable, defaultPort) = (httpsProxy, "HTTPS_PROXY", 443)
        case "http": (value, variable, defaultPort) = (httpProxy, "HTTP_PROXY", 80)
        default: return nil
        }
        guard let value, !NoProxyRule.trimmingSpace(value).isEmpty else { return nil }
        guard usesProxy(host: url.host(percentEncoded: false) ?? "", port: url.port ?? defaultPort) else { return nil }
        return try ProxyServer.settings(fromURL: value, setting: variable)
    }

    /// Go's `useProxy`: whether a request to `host` (as a URL gives it: percent-decoded, IPv6 without brackets) on
    /// `port` goes through the proxy rather than direct.
    func usesProxy(host: String, port: Int) -> Bool {
        let host = NoProxyRule.asciiHost(host)
        // Go compares "localhost" case-sensitively; every case of it resolves to loopback, so none goes to a proxy.
        if host.lowercased() == "localhost" { return false }
        let address = NoProxyRule.address(host, allowsZone: true)
        if let address, NoProxyRule.isLoopback(address) { return false }
        let name = NoProxyRule.trimmingSpace(host).lowercased()
        let portText = String(port)
        let rules = NoProxyRule.rules(from: noProxy ?? "")
        return !rules.contains { $0.matches(name: name, address: address, port: portText) }
    }

    /// `ProxyEnvironment(httpProxy: "http://alice:REDACTED@proxy:3128", httpsProxy: nil, noProxy: "localhost")`.
    public var description: String {
        func quoted(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "nil" }
        return "ProxyEnvironment(httpProxy: \(quoted(Self.redacted(httpProxy)))"
            + ", httpsProxy: \(quoted(Self.redacted(httpsProxy))), noProxy: \(quoted(noProxy)))"
    }

    /// The three values, passwords in the proxy URLs replaced with `REDACTED`.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "httpProxy": Self.redacted(httpProxy) as Any, "httpsProxy": Self.redacted(httpsProxy) as Any,
                "noProxy": noProxy as Any,
            ],
            displayStyle: .struct)
    }

    /// `value` with what follows the first `:` of its user info replaced. The user info ends at the last `@` of the
    /// whole value rather than of the authority, so that a password with an unencoded `/`, `?`, `#` or `://`, which
    /// makes the value invalid, is hidden too.
    private static func redacted(_ value: String?) -> String? {
        guard let value, let at = value.lastIndex(of: "@") else { return value }
        var start = value.startIndex
        if let scheme = value.firstRange(of: "://"), scheme.upperBound <= at,
            value[..<scheme.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
        {
            start = scheme.upperBound
        }
        guard let colon = value[start..<at].firstIndex(of: ":") else { return value }
        return value[...colon] + "REDACTED" + value[at...]
    }
}
