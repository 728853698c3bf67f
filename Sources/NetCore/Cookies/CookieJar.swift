#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetKitLock

/// Cookies (RFC 6265) kept between requests, opt-in: `manager.cookieJar = CookieJar()`.
///
/// The engine stores every `Set-Cookie` of every response (whatever its status; not of a response the
/// ``ResponseCache`` answered) and adds a `Cookie` header to each later request, `send` and `stream` alike, with
/// the cookies whose domain and path match it, longer paths first, then older first (§5.4). The same on every
/// transport, Linux included:
///
/// ```swift
/// let manager = NetworkManager(baseURL: URL(string: "https://api.example.com")!)
/// manager.cookieJar = CookieJar()
/// _ = try await manager.send(Login(user: "ann", password: secret), accessToken: nil)   // Set-Cookie: session=…
/// let me = try await manager.send(GetProfile(), accessToken: nil)                      // Cookie: session=…
/// ```
///
/// What decides where a cookie goes:
/// - A cookie never goes to another host than it may: without a `Domain` attribute it goes back to the host
///   that set it only (`127.0.0.1` and `localhost` are two hosts); with one, to that domain and its subdomains,
///   and a `Domain` the setting host is not inside is ignored, cookie and all.
/// - A `Domain` that is a public suffix (`com`, `co.uk`, `github.io`: the Public Suffix List NetKit ships, see
///   ``PublicSuffixes``) is refused, unless it is the request's own host (then the cookie is host-only), so that no
///   site sets a cookie for its siblings. On an IP address host, `Domain` must be that address (host-only); a
///   `Domain` that is not ASCII is refused. A trailing dot counts: `example.com.` is another host than
///   `example.com`, as in browsers.
/// - Names, values, domains and paths are compared as the server's bytes, never as `String`s (which take
///   `K` and U+212A KELVIN SIGN as equal).
/// - `Path` (or the default path of the request that set it), `Expires` and `Max-Age` (which wins; an expiry in
///   the past deletes the cookie), and `Secure` (set and sent over `https` only) are honoured. `HttpOnly` and
///   `SameSite` are kept as attributes: every request NetKit sends is an HTTP request of the caller's own.
/// - A request's own `Cookie` header stays and comes first; the jar adds its cookies after it, except those whose
///   name the request already sends.
///
/// The engine follows redirects itself, so the jar sees every hop: a `Set-Cookie` on a redirect response
/// (`POST /login` → `302 /home`) is kept, filed under the URL that answered, and the next hop carries it. On the
/// URLSession transports, a request whose
/// cookies the jar manages is sent with `httpShouldHandleCookies = false`, so the session's own cookie storage
/// neither replaces nor adds to the jar's header.
///
/// Cookie values are secrets: ``Cookie``'s descriptions redact them, and NetKit's logging redacts `Cookie` and
/// `Set-Cookie`. The jar keeps cookies in memory only, for as long as it lives.
public final class CookieJar: Sendable {
    private let store: Lock<CookieStore>
    private let now: @Sendable () -> Date

    /// Creates an empty jar that refuses `Domain` attributes naming a public suffix of the bundled list.
    public convenience init() {
        self.init(publicSuffixes: .bundled)
    }

    /// Creates an empty jar that refuses `Domain` attributes naming a public suffix by `publicSuffixes`:
    /// ``PublicSuffixes/bundled`` (what `init()` uses), ``PublicSuffixes/topLevelOnly``, or a rule of your own.
    public init(publicSuffixes: PublicSuffixes) {
        self.store = Lock(CookieStore(publicSuffixes: publicSuffixes))
        self.now = { Date() }
    }

    /// Creates an empty jar that reads the time from `now` (for tests of expiry).
    package init(publicSuffixes: PublicSuffixes = .bundled, now: @escaping @Sendable () -> Date) {
        self.store = Lock(CookieStore(publicSuffixes: publicSuffixes))
        self.now = now
    }

    /// The cookies the jar would send with a request to `url`, in the order it would send them.
    public func cookies(for url: URL) -> [Cookie] {
        guard let target = CookieTarget(url) else { return [] }
        return cookies(for: target)
    }

    /// Every cookie the jar holds that has not expired, oldest first.
    public var allCookies: [Cookie] {
        let now = now()
        return store.withLock { $0.all(at: now) }
    }

    /// Forgets every cookie.
    public func removeAll() {
        store.withLock { $0.removeAll() }
    }

    /// Stores `cookie` as if a server had set it, replacing the cookie with its name, domain and path (a cookie
    /// that has expired only removes that one).
    /// - Throws: ``CookieError`` for a name, value, domain or path that could not travel in a `Cookie` header or
    ///   match a request; the jar is then unchanged.
    public func setCookie(_ cookie: Cookie) throws(CookieError) {
        var cookie = cookie
        try CookieError.check(&cookie)
        let now = now()
        store.withLock { $0.store(cookie, fromSecureOrigin: true, at: now) }
    }

    /// Stores the `Set-Cookie` fields of `fields`, received in answer to a request for `url`.
    public func storeCookies(from fields: HTTPHeaderFields, for url: URL) {
        guard let target = CookieTarget(url) else { return }
        receive(fields.values(for: "Set-Cookie"), from: target)
    }

    // MARK: The engine's side

    /// The cookies for `target`, in sending order.
    package func cookies(for target: CookieTarget) -> [Cookie] {
        let now = now()
        return store.withLock { $0.cookies(for: target, at: now) }
    }

    /// Stores `fields` (`Set-Cookie` values) received from `target`.
    package func receive(_ fields: [String], from target: CookieTarget) {
        guard !fields.isEmpty else { return }
        let now = now()
        store.withLock { store in
            for field in fields { store.receive(field, from: target, at: now) }
        }
    }

    /// Adds the jar's cookies for `request`'s target to its `Cookie` header, after the request's own (whose names
    /// the jar does not repeat), and marks the request as one whose cookies the jar manages.
    func addCookies(to request: inout TransportRequest) {
        request.cookiesFromJar = true
        var cookies = cookies(for: CookieTarget(request.head))
        guard !cookies.isEmpty else { return }
        let own = request.head.headerFields.value(for: "Cookie")
        if let own {
            // Names compared as bytes, spaces and tabs left out.
            let names = Set(
                own.utf8.split(separator: UInt8(ascii: ";")).map { pair in
                    (pair.firstIndex(of: UInt8(ascii: "=")).map { pair[..<$0] } ?? pair).filter {
                        $0 != 0x20 && $0 != 0x09
                    }
                })
            cookies.removeAll { names.contains(Array($0.name.utf8)) }
            guard !cookies.isEmpty else { return }
        }
        let added = cookies.map(\.pair).joined(separator: "; ")
        // The jar's names and values were checked when they were stored: nothing here can be refused.
        try? request.setHeader("Cookie", own.map { $0 + "; " + added } ?? added)
    }
}
