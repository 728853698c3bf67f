#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a redirected request may carry: credentials stay with the origin they were meant for.
///
/// Every transport applies it when it follows a redirect itself; a transport of your own can too:
///
/// ```swift
/// if !RedirectPolicy.isSameOrigin(originalURL, redirectURL) {
///     fields = RedirectPolicy.removingCredentials(from: fields)
/// }
/// ```
public enum RedirectPolicy {
    /// Headers that carry credentials and are dropped when a redirect leaves the origin.
    public static let credentialHeaderNames = ["Authorization", "Proxy-Authorization", "Cookie"]

    /// Whether `lhs` and `rhs` have the same scheme, host and port (the port a scheme implies counts).
    public static func isSameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        lhs.scheme?.lowercased() == rhs.scheme?.lowercased()
            && lhs.host?.lowercased() == rhs.host?.lowercased()
            && effectivePort(lhs) == effectivePort(rhs)
    }

    /// Whether a request first sent to `origin` may carry its credentials to `target`: only to the same origin.
    /// Without a known origin nothing is kept.
    public static func keepsCredentials(from origin: URL?, to target: URL) -> Bool {
        guard let origin else { return false }
        return isSameOrigin(origin, target)
    }

    /// `fields` without the headers that carry credentials.
    public static func removingCredentials(from fields: HTTPHeaderFields) -> HTTPHeaderFields {
        var fields = fields
        for name in credentialHeaderNames { fields.removeValues(for: name) }
        return fields
    }

    private static func effectivePort(_ url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http", "ws": return 80
        case "https", "wss": return 443
        default: return nil
        }
    }
}
