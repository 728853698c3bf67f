#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import NetCore

extension HTTPCookieStorage {
    /// Keeps the cookies `head` sets in answer to `request`, one `Set-Cookie` field at a time, by the rules of
    /// NetKit's `CookieJar` (RFC 6265bis); the storage's own accept policy still decides.
    ///
    /// URLSessionTransport's session accepts none, because FoundationNetworking would otherwise read every header
    /// line of every response for cookies on the work queue all sessions of a process share; the transport calls
    /// this instead, off that queue, and a response without `Set-Cookie` costs one look through its fields. Its
    /// rules are NetKit's, not FoundationNetworking's, which keeps a `Domain` that is a public suffix (a cookie one
    /// server sets for every `.com` host), a `Secure` cookie set over plain `http`, a plain cookie that replaces a
    /// `Secure` one, and `__Host-` and `__Secure-` cookies that break their prefix's conditions: all refused here.
    func keepCookies(of head: HTTPResponseHead, for request: HTTPRequestHead, at now: Date = Date()) {
        let fields = head.headerFields.values(for: "Set-Cookie")
        guard !fields.isEmpty, cookieAcceptPolicy != .never else { return }
        let target = CookieTarget(request)
        // The Secure cookies a plain origin's cookie must not replace or shadow (RFC 6265bis §5.7): all of them, as a
        // sibling host's (`www.example.com`) is shadowed by a cookie for the parent domain, which `cookies(for:)` omits.
        let secure = target.isSecure ? [] : (cookies ?? []).map(Cookie.init).filter(\.isSecure)
        for field in fields {
            guard let parsed = SetCookieParser.parse(field),
                let cookie = CookieStore.cookie(from: parsed, for: target, at: now, publicSuffixes: .bundled),
                !secure.contains(where: { CookieStore.shadows($0, cookie) }),
                let stored = cookie.httpCookie
            else { continue }
            // An expiry in the past deletes: the storage drops expired cookies after each one it sets.
            setCookie(stored)
        }
    }
}
#endif
