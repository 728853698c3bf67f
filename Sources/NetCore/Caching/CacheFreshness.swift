#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How long a stored response stays fresh and how old it is (RFC 9111 §4.2), worked out from its head and the
/// times it was asked for and received; the current time is always given, never read here.
///
/// The freshness lifetime is `max-age` (`s-maxage` is for shared caches only), or else `Expires` minus `Date`: one
/// `Expires` field holding a strict HTTP-date (``HTTPDate``); anything else there (`0`, a `UTC` zone, two lines)
/// means already stale (§5.3). With neither, a response whose status code is heuristically cacheable (RFC 9110
/// §15.1) or that is marked `public` and that has a `Last-Modified` gets a heuristic lifetime (§4.2.2): a tenth of
/// the time since that modification, at most a week. Any other response is stale from the start and used only
/// after a validation the server answers with 304.
package struct CacheFreshness: Sendable, Equatable {
    /// Seconds the response stays fresh after it was generated.
    package let lifetime: Double
    /// Whether the lifetime is the server's (`max-age` or `Expires`), not a heuristic one or none.
    package let isExplicit: Bool
    /// The response's age when it was received (the corrected initial age of §4.2.3), in seconds.
    package let initialAge: Double
    /// When the response was received.
    package let responseTime: Date

    /// The share of the time since `Last-Modified` a heuristic lifetime takes (RFC 9111 §4.2.2's typical 10 %).
    static let heuristicFraction = 0.1
    /// The longest heuristic lifetime, in seconds: a week, as Firefox bounds it.
    static let maximumHeuristicLifetime = 7.0 * 86_400

    /// Status codes whose responses may be stored and given a heuristic lifetime without explicit freshness
    /// (RFC 9110 §15.1).
    package static let heuristicallyCacheableStatuses: Set<Int> = [
        200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501,
    ]

    /// A freshness worked out before (read back from a store's bytes).
    package init(lifetime: Double, isExplicit: Bool, initialAge: Double, responseTime: Date) {
        self.lifetime = lifetime
        self.isExplicit = isExplicit
        self.initialAge = initialAge
        self.responseTime = responseTime
    }

    /// The freshness of a response with `head`, whose request went out at `requestTime` and whose head came back
    /// at `responseTime`.
    package init(head: HTTPResponseHead, requestTime: Date, responseTime: Date) {
        let fields = head.headerFields
        let date = fields.value(for: "Date").flatMap { HTTPDate.parse($0, now: responseTime) } ?? responseTime
        let control = CacheControl(fields)
        if let maxAge = control.maxAge {
            lifetime = Double(maxAge)
            isExplicit = true
        } else if fields.contains("Expires") {
            let expires = fields.values(for: "Expires")
            let expiry = expires.count == 1 ? HTTPDate.parse(expires[0], now: responseTime) : nil
            lifetime = expiry.map { max(0, $0.timeIntervalSince(date)) } ?? 0
            isExplicit = true
        } else if Self.heuristicallyCacheableStatuses.contains(head.statusCode) || control.isPublic,
            let modified = fields.value(for: "Last-Modified").flatMap({ HTTPDate.parse($0, now: responseTime) })
        {
            let sinceModified = max(0, date.timeIntervalSince(modified))
            lifetime = min(Self.maximumHeuristicLifetime, sinceModified * Self.heuristicFraction)
            isExplicit = false
        } else {
            lifetime = 0
            isExplicit = false
        }
        // §4.2.3: the age the response already had, corrected for the clock of its server and the time in transit.
        // Only the first `Age` line counts, and of a list in it the first member (what the browsers read).
        let ageValue =
            fields.values(for: "Age").first
            .flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).first }
            .flatMap { CacheControl.deltaSeconds(CacheControl.trimmed($0)) } ?? 0
        let apparentAge = max(0, responseTime.timeIntervalSince(date))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        initialAge = max(apparentAge, Double(ageValue) + responseDelay)
        self.responseTime = responseTime
    }

    /// The response's age at `now`, in seconds (never negative, even if the clock went back).
    package func age(at now: Date) -> Double {
        initialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// Seconds of freshness left at `now`: negative once stale (by how much).
    package func remaining(at now: Date) -> Double {
        lifetime - age(at: now)
    }

    /// Whether the response is fresh at `now`.
    package func isFresh(at now: Date) -> Bool {
        remaining(at: now) > 0
    }
}
