#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The cookies of a ``CookieJar`` and RFC 6265's storage and retrieval rules (§5.3, §5.4) as a plain value: the
/// jar holds one behind a lock and passes the time in, so the rules are tested without a clock.
///
/// Beyond RFC 6265, the store follows RFC 6265bis where it protects the caller: a `Secure` cookie is only set
/// over a secure connection, and a plain one cannot replace it; `__Secure-` and `__Host-` prefixes are honoured;
/// an expiry is capped at 400 days. It holds at most ``maximumPerDomain`` cookies per domain and
/// ``maximumCount`` in all, dropping the least recently used first.
///
/// A `Domain` attribute that is a public suffix (``PublicSuffixes``: `com`, `co.uk`, `github.io`) is refused
/// unless it is the request's own host, when the cookie is host-only (RFC 6265bis §5.7); on an IP address host it
/// must be that address, and the cookie is host-only; one that is not ASCII is refused (hosts arrive as A-labels).
/// Names, domains and paths are compared as bytes (``CookieMatching``).
package struct CookieStore: Sendable {
    /// The most cookies kept for one domain (RFC 6265 §6.1 asks for at least 50).
    package static let maximumPerDomain = 50
    /// The most cookies kept in all (RFC 6265 §6.1 asks for at least 3000).
    package static let maximumCount = 3000
    /// The furthest expiry kept (RFC 6265bis §5.5): 400 days.
    static let maximumLifetime: TimeInterval = 400 * 86_400

    private struct Entry: Sendable {
        var cookie: Cookie
        var lastAccess: Date
        /// Breaks ties between cookies created at the same instant: the earlier stored comes first.
        var order: Int
    }

    private var entries: [Entry] = []
    private var nextOrder = 0
    /// How many of ``entries`` each domain has, so that a new cookie costs no count of them all.
    /// Keyed by the domain's bytes: `String` keys would merge canonically equivalent domains.
    private var domainCounts: [[UInt8]: Int] = [:]
    /// Which `Domain` attributes are refused as public suffixes.
    package let publicSuffixes: PublicSuffixes

    package init(publicSuffixes: PublicSuffixes = .bundled) {
        self.publicSuffixes = publicSuffixes
    }

    /// Every cookie that has not expired at `now`, oldest first.
    package func all(at now: Date) -> [Cookie] {
        entries.filter { !$0.cookie.isExpired(at: now) }.sorted(by: Self.creationOrder).map(\.cookie)
    }

    package mutating func removeAll() {
        entries.removeAll()
        domainCounts.removeAll()
    }

    /// Keeps what a `Set-Cookie` field sent in answer to a request for `target` says, as RFC 6265 §5.3 decides: a
    /// new cookie, a replacement, a deletion (an expiry in the past), or nothing.
    package mutating func receive(_ field: String, from target: CookieTarget, at now: Date) {
        guard let parsed = SetCookieParser.parse(field),
            let cookie = Self.cookie(from: parsed, for: target, at: now, publicSuffixes: publicSuffixes)
        else { return }
        store(cookie, fromSecureOrigin: target.isSecure, at: now)
    }

    /// The cookie `parsed` makes for a response to `target`, or `nil` when the rules refuse it. `package`: the
    /// URLSession transport keeps a configuration's `HTTPCookieStorage` by these rules on Linux.
    package static func cookie(
        from parsed: SetCookie, for target: CookieTarget, at now: Date, publicSuffixes: PublicSuffixes
    ) -> Cookie? {
        // Secure cookies come only from secure origins (RFC 6265bis §5.7).
        if parsed.isSecure, !target.isSecure { return nil }
        var expiresAt: Date?
        if let maxAge = parsed.maxAge {
            expiresAt =
                maxAge <= 0 ? Date.distantPast : now.addingTimeInterval(min(TimeInterval(maxAge), maximumLifetime))
        } else if let expires = parsed.expires {
            expiresAt = min(expires, now.addingTimeInterval(maximumLifetime))
        }
        guard let (domain, isHostOnly) = Self.domain(of: parsed, for: target, publicSuffixes: publicSuffixes) else {
            return nil
        }
        let path = parsed.path ?? CookieMatching.defaultPath(of: target.path)
        // RFC 6265bis §4.1.3: the prefixes, matched on bytes in ASCII case (a combining mark cannot hide them).
        if CookieMatching.hasCaseInsensitivePrefix(parsed.name, "__secure-"), !parsed.isSecure { return nil }
        if CookieMatching.hasCaseInsensitivePrefix(parsed.name, "__host-"),
            !parsed.isSecure || parsed.domain != nil || !CookieMatching.same(path, "/")
        {
            return nil
        }
        return Cookie(
            name: parsed.name, value: parsed.value, domain: domain, path: path, expiresAt: expiresAt,
            isSecure: parsed.isSecure, isHTTPOnly: parsed.isHTTPOnly, sameSite: parsed.sameSite, isHostOnly: isHostOnly,
            createdAt: now
        )
    }

    /// The domain a cookie from `target` gets, and whether it is host-only (RFC 6265bis §5.7); `nil` when the
    /// `Domain` attribute refuses the cookie.
    ///
    /// - No attribute: the request's host, host-only.
    /// - Not ASCII: refused (hosts arrive as A-labels; browsers refuse such a domain too).
    /// - On an IP address host, or naming an IP address: the same address (`[::1]` for `::1` too), host-only;
    ///   anything else is refused. An address is never suffix-matched.
    /// - A public suffix (`com`, `co.uk`, `com.`): the request's own host exactly, host-only; otherwise refused.
    /// - Otherwise, a domain the host domain-matches (byte-wise, a trailing dot significant: `example.com.` is
    ///   another host than `example.com`), for it and its subdomains; any other is refused.
    static func domain(
        of parsed: SetCookie, for target: CookieTarget, publicSuffixes: PublicSuffixes
    ) -> (domain: String, isHostOnly: Bool)? {
        guard var attribute = parsed.domain?.utf8[...], !attribute.isEmpty else { return (target.host, true) }
        guard attribute.allSatisfy({ $0 < 0x80 }) else { return nil }
        if attribute.first == UInt8(ascii: "["), attribute.last == UInt8(ascii: "]") {
            attribute = attribute.dropFirst().dropLast()
        }
        let domain = String(decoding: attribute, as: UTF8.self)
        if CookieMatching.isIPAddress(target.host) || CookieMatching.isIPAddress(domain)
            || publicSuffixes.isPublicSuffix(domain)
        {
            return CookieMatching.same(domain, target.host) ? (target.host, true) : nil
        }
        return CookieMatching.domain(target.host, matches: domain) ? (domain, false) : nil
    }

    /// Stores `cookie`, replacing the one with its name, domain and path (whose creation time it keeps); a cookie
    /// that has expired only removes that one.
    package mutating func store(_ cookie: Cookie, fromSecureOrigin secure: Bool, at now: Date) {
        var cookie = cookie
        if !secure, entries.contains(where: { Self.shadows($0.cookie, cookie) }) { return }
        if let index = entries.firstIndex(where: { Self.sameIdentity($0.cookie, cookie) }) {
            cookie.createdAt = entries[index].cookie.createdAt
            let order = entries[index].order
            remove(at: index)
            guard !cookie.isExpired(at: now) else { return }
            append(Entry(cookie: cookie, lastAccess: now, order: order))
        } else {
            guard !cookie.isExpired(at: now) else { return }
            append(Entry(cookie: cookie, lastAccess: now, order: nextOrder))
            nextOrder += 1
        }
        evict(keeping: cookie.domain, at: now)
    }

    /// The cookies to send with a request to `target` at `now`, in the order RFC 6265 §5.4 gives: longer paths
    /// first, then the older first. Expired cookies are removed on the way.
    package mutating func cookies(for target: CookieTarget, at now: Date) -> [Cookie] {
        removeExpired(at: now)
        var chosen: [Entry] = []
        for index in entries.indices where entries[index].cookie.matches(target, at: now) {
            entries[index].lastAccess = now
            chosen.append(entries[index])
        }
        return chosen.sorted { lhs, rhs in
            let lhsLength = lhs.cookie.path.utf8.count
            let rhsLength = rhs.cookie.path.utf8.count
            return lhsLength != rhsLength ? lhsLength > rhsLength : Self.creationOrder(lhs, rhs)
        }.map(\.cookie)
    }

    private static func creationOrder(_ lhs: Entry, _ rhs: Entry) -> Bool {
        lhs.cookie.createdAt != rhs.cookie.createdAt
            ? lhs.cookie.createdAt < rhs.cookie.createdAt : lhs.order < rhs.order
    }

    private static func sameIdentity(_ lhs: Cookie, _ rhs: Cookie) -> Bool {
        CookieMatching.same(lhs.name, rhs.name) && CookieMatching.same(lhs.domain, rhs.domain)
            && CookieMatching.same(lhs.path, rhs.path)
    }

    /// Whether a plain origin's `new` would overwrite or shadow the `Secure` cookie `old` (RFC 6265bis §5.7).
    package static func shadows(_ old: Cookie, _ new: Cookie) -> Bool {
        old.isSecure && CookieMatching.same(old.name, new.name)
            && (CookieMatching.domain(old.domain, matches: new.domain)
                || CookieMatching.domain(new.domain, matches: old.domain))
            && CookieMatching.path(new.path, matches: old.path)
    }

    /// Past a limit, drops expired cookies, then the least recently used ones.
    private mutating func evict(keeping domain: String, at now: Date) {
        let key = Array(domain.utf8)
        if entries.count > Self.maximumCount || domainCounts[key, default: 0] > Self.maximumPerDomain {
            removeExpired(at: now)
        }
        while domainCounts[key, default: 0] > Self.maximumPerDomain {
            removeLeastRecentlyUsed(in: domain)
        }
        while entries.count > Self.maximumCount {
            removeLeastRecentlyUsed(in: nil)
        }
    }

    /// Removes the least recently used cookie (of `domain`, or of all).
    private mutating func removeLeastRecentlyUsed(in domain: String?) {
        var oldest: Int?
        for index in entries.indices
        where domain.map({ CookieMatching.same(entries[index].cookie.domain, $0) }) ?? true {
            guard let current = oldest else {
                oldest = index
                continue
            }
            let candidate = entries[index]
            let chosen = entries[current]
            if candidate.lastAccess < chosen.lastAccess
                || (candidate.lastAccess == chosen.lastAccess && candidate.order < chosen.order)
            {
                oldest = index
            }
        }
        if let oldest { remove(at: oldest) }
    }

    private mutating func append(_ entry: Entry) {
        entries.append(entry)
        domainCounts[Array(entry.cookie.domain.utf8), default: 0] += 1
    }

    private mutating func remove(at index: Int) {
        let key = Array(entries.remove(at: index).cookie.domain.utf8)
        domainCounts[key, default: 1] -= 1
        if domainCounts[key] == 0 { domainCounts[key] = nil }
    }

    private mutating func removeExpired(at now: Date) {
        let count = entries.count
        entries.removeAll { $0.cookie.isExpired(at: now) }
        guard entries.count != count else { return }
        domainCounts = entries.reduce(into: [:]) { $0[Array($1.cookie.domain.utf8), default: 0] += 1 }
    }
}
