#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a request goes, as cookies see it: the host (lowercased, an IPv6 address without brackets), the path
/// without its query, and whether the connection is secure.
package struct CookieTarget: Sendable, Hashable {
    package var host: String
    package var path: String
    package var isSecure: Bool

    package init(host: String, path: String, isSecure: Bool) {
        self.host = CookieMatching.canonical(host)
        self.path = path.isEmpty ? "/" : path
        self.isSecure = isSecure
    }

    /// The target of a request head.
    package init(_ head: HTTPRequestHead) {
        self.init(host: head.host, path: String(head.pathWithoutQuery), isSecure: Self.isSecure(scheme: head.scheme))
    }

    /// The target of an absolute URL; `nil` for one without a host.
    package init?(_ url: URL) {
        guard let head = try? HTTPRequestHead(url: url) else { return nil }
        self.init(head)
    }

    /// `https` and `wss` are secure (RFC 6265 §5.4 leaves "secure" to the user agent; NetKit counts no plain `http`
    /// host as secure, `localhost` included).
    static func isSecure(scheme: String) -> Bool {
        CookieMatching.equalsIgnoringCase(scheme, "https") || CookieMatching.equalsIgnoringCase(scheme, "wss")
    }
}
