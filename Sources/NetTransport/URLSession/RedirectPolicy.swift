import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a redirected request may carry: credentials stay with the origin they were meant for.
enum RedirectPolicy {
    /// Headers that carry credentials and are dropped when a redirect leaves the origin.
    static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie"]

    /// `request` without credential headers when it goes to another scheme, host or port than `origin`.
    static func request(_ request: URLRequest, redirectedFrom origin: URL?) -> URLRequest {
        guard let origin, let target = request.url, !isSameOrigin(origin, target) else { return request }
        var stripped = request
        for header in credentialHeaders {
            stripped.setValue(nil, forHTTPHeaderField: header)
        }
        return stripped
    }

    static func isSameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        lhs.scheme?.lowercased() == rhs.scheme?.lowercased()
            && lhs.host?.lowercased() == rhs.host?.lowercased()
            && effectivePort(lhs) == effectivePort(rhs)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }
}
