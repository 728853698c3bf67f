#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import NetCore

extension HTTPCookieStorage {
    /// The `Cookie` header the storage's cookies make for `request` at `now`, by RFC 6265's retrieval rules as
    /// NetKit's `CookieJar` applies them (§5.4: domain, path, `Secure` only over `https`, not expired;
    /// longer paths first); `nil` when none goes.
    ///
    /// FoundationNetworking's `cookies(for:)` matches the host alone: on its word a `Secure` cookie would go out
    /// over plain `http` in clear text, a cookie for `/admin` to every path, and an expired one until the storage
    /// next sets a cookie.
    func cookieHeader(for request: HTTPRequestHead, at now: Date = Date()) -> String? {
        guard let url = request.url, let stored = cookies(for: url), !stored.isEmpty else { return nil }
        let target = CookieTarget(request)
        // Stable: cookies with paths of one length keep the storage's order.
        let chosen = stored.map(Cookie.init).filter { $0.matches(target, at: now) }.enumerated().sorted {
            let (lhs, rhs) = ($0.element.path.utf8.count, $1.element.path.utf8.count)
            return lhs != rhs ? lhs > rhs : $0.offset < $1.offset
        }
        guard !chosen.isEmpty else { return nil }
        return chosen.map(\.element.pair).joined(separator: "; ")
    }
}
#endif
