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
/// Without a public-suffix list, a `Domain` attribute that is a bare top-level name (no dot, such as `com`) is
/// refused unless it is the request's own host (then the cookie is host-only); a `Domain` such as `co.uk` is
/// accepted when the request host is under it.
package struct CookieStore: Sendable {
    /// The most cookies kept for one domain (RFC 6265 §6.1 asks for at least 50).
    package static let maximumPerDomain = 50
    /// The most cookies kept in all (RFC 6265 §6.1 asks for at least 3000).
    package static let maximumCount = 3000
    /// The furthest expiry kept (RFC 6265bis §5.5): 400 days.
    package static let maximumLifetime: TimeInterval = 400 * 86_400

    private struct Entry: Sendable {
        var cookie: Cookie
        var lastAccess: Date
        /// Breaks ties between cookies created at the same instant: the earlier stored comes first.
        var order: Int
    }

    private var entries: [Entry] = []
    private var nextOrder = 0
    /// How many of ``entries`` each domain has, so that a new cookie costs no count of them all.
    private var domainCounts: [String: Int] = [:]

    package init() {}

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
        guard let parsed = SetCookieParser.parse(field), let cookie = Self.cookie(from: parsed, for: target, at: now)
        else { return }
        store(cookie, fromSecureOrigin: target.isSecure, at: now)
    }

    /// The cookie `parsed` makes for a response to `target`, or `nil` when the rules refuse it.
    static func cookie(from parsed: SetCookie, for target: CookieTarget, at now: Date) -> Cookie? {
        // Secure cookies come only from secure origins (RFC 6265bis §5.7).
        if parsed.isSecure, !target.isSecure { return nil }
        var expiresAt: Date?
        if let maxAge = parsed.maxAge {
            expiresAt =
                maxAge <= 0 ? Date.distantPast : now.addingTimeInterval(min(TimeInterval(maxAge), maximumLifetime))
        } else if let expires = parsed.expires {
            expiresAt = min(expires, now.addingTimeInterval(maximumLifetime))
        }
        var domain = parsed.domain ?? ""
        if !domain.isEmpty, !domain.utf8.contains(UInt8(ascii: ".")), !CookieMatching.isIPAddress(domain) {
            // A bare top-level name is a public suffix: only its own host may set a (host-only) cookie for it.
            guard domain == target.host else { return nil }
            domain = ""
        }
        let isHostOnly: Bool
        if domain.isEmpty {
            isHostOnly = true
            domain = target.host
        } else {
            guard CookieMatching.domain(target.host, matches: domain) else { return nil }
            isHostOnly = false
        }
        let path = parsed.path ?? CookieMatching.defaultPath(of: target.path)
        let name = parsed.name.lowercased()
        if name.hasPrefix("__secure-"), !parsed.isSecure { return nil }
        if name.hasPrefix("__host-"), !parsed.isSecure || !isHostOnly || path != "/" { return nil }
        return Cookie(
            name: parsed.name, value: parsed.value, domain: domain, path: path, expiresAt: expiresAt,
            isSecure: parsed.isSecure, isHTTPOnly: parsed.isHTTPOnly, sameSite: parsed.sameSite, isHostOnly: isHostOnly,
            createdAt: now
        )
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
        lhs.name == rhs.name && lhs.domain == rhs.domain && lhs.path == rhs.path
    }

    /// Whether a plain origin's `new` would overwrite or shadow the `Secure` cookie `old` (RFC 6265bis §5.7).
    private static func shadows(_ old: Cookie, _ new: Cookie) -> Bool {
        old.isSecure && old.name == new.name
            && (CookieMatching.domain(old.domain, matches: new.domain)
                || CookieMatching.domain(new.domain, matches: old.domain))
            && CookieMatching.path(new.path, matches: old.path)
    }

    /// Past a limit, drops expired cookies, then the least recently used ones.
    private mutating func evict(keeping domain: String, at now: Date) {
        if entries.count > Self.maximumCount || domainCounts[domain, default: 0] > Self.maximumPerDomain {
            removeExpired(at: now)
        }
        while domainCounts[domain, default: 0] > Self.maximumPerDomain {
            removeLeastRecentlyUsed(in: domain)
        }
        while entries.count > Self.maximumCount {
            removeLeastRecentlyUsed(in: nil)
        }
    }

    /// Removes the least recently used cookie (of `domain`, or of all).
    private mutating func removeLeastRecentlyUsed(in domain: String?) {
        var oldest: Int?
        for index in entries.indices where domain == nil || entries[index].cookie.domain == domain {
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
        domainCounts[entry.cookie.domain, default: 0] += 1
    }

    private mutating func remove(at index: Int) {
        let domain = entries.remove(at: index).cookie.domain
        domainCounts[domain, default: 1] -= 1
        if domainCounts[domain] == 0 { domainCounts[domain] = nil }
    }

    private mutating func removeExpired(at now: Date) {
        let count = entries.count
        entries.removeAll { $0.cookie.isExpired(at: now) }
        guard entries.count != count else { return }
        domainCounts = entries.reduce(into: [:]) { $0[$1.cookie.domain, default: 0] += 1 }
    }
}
