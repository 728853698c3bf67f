#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The response cache's decisions (RFC 9111), pure: which requests it takes part in, whether a stored response may
/// be used as it is, how to validate one, and which responses it may store.
package enum CachePolicy {
    /// What the cache may do with a stored response for a request.
    package enum Use: Sendable, Equatable {
        /// Hand it out without asking the server, fresh; it is this old, in seconds.
        case serve(age: Double)
        /// Hand it out without asking the server although stale, within the request's `max-stale`; it is this old.
        case serveStale(age: Double)
        /// Hand it out at once although stale, and validate it in the background (`stale-while-revalidate`).
        case serveWhileRevalidating(age: Double)
        /// Ask the server first (conditionally, when the response has a validator).
        case validate
    }

    /// Request fields that make a request conditional or partial: such a request is the caller's own business and
    /// passes the cache by, since a stored 200 is not what it asks for.
    private static let conditionalFields = [
        "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range",
    ]

    /// Whether the cache answers and stores `request`: a `GET` without a body that is not conditional or partial,
    /// and whose `Cache-Control` does not say `no-store`.
    package static func takesPart(_ request: TransportRequest) -> Bool {
        directives(ifTakingPart: request) != nil
    }

    /// The request's `Cache-Control` directives when the cache takes part in it (``takesPart(_:)``), read once for
    /// both questions; `nil` when it does not.
    package static func directives(ifTakingPart request: TransportRequest) -> CacheControl? {
        guard request.method == .get, request.body == nil else { return nil }
        let fields = request.head.headerFields
        guard !conditionalFields.contains(where: fields.contains) else { return nil }
        let directives = CacheControl(fields, isRequest: true)
        return directives.noStore ? nil : directives
    }

    /// Whether a response to a request of `method` with `status` makes the stored responses of its target stale
    /// (§4.4): a success or redirect of a method that is not safe, any method NetKit does not know included.
    package static func invalidates(method: HTTPRequestMethod, status: Int) -> Bool {
        !method.isSafe && (200..<400).contains(status)
    }

    /// The targets whose stored responses a response to `request` that ``invalidates(method:status:)`` makes stale
    /// (§4.4): the request's own, and the URLs its `Location` and `Content-Location` name (relative ones resolved
    /// against the request's) when they have the request's origin; a URL of another origin is left alone, so that
    /// one server cannot clear what another served.
    package static func invalidatedTargets(of request: HTTPRequestHead, response: HTTPResponseHead)
        -> [HTTPRequestHead]
    {
        var targets = [request]
        let origin = HTTPOrigin(request)
        for name in ["Location", "Content-Location"] {
            guard let value = response.headerFields.value(for: name), !value.isEmpty,
                let base = request.url, let url = URL(string: value, relativeTo: base)?.absoluteURL,
                let head = try? HTTPRequestHead(method: .get, url: url), HTTPOrigin(head) == origin,
                !targets.contains(where: { CacheKey($0, method: .get) == CacheKey(head, method: .get) })
            else { continue }
            targets.append(head)
        }
        return targets
    }

    /// Whether `stored` may be handed out at `now` for a request with `request`'s directives (§4.2, §5.2.1):
    /// fresh, young enough for `max-age`, fresh enough for `min-fresh`, or stale within `max-stale` when the
    /// response allows that (no `must-revalidate`); never without validation when either side says `no-cache`.
    ///
    /// A fresh `immutable` response (RFC 8246) ignores the request's `max-age` (a reload); a stale one within its
    /// `stale-while-revalidate` window answers at once while it is validated in the background (RFC 5861 §3).
    package static func use(_ stored: CachedResponse, request: CacheControl, at now: Date) -> Use {
        let response = stored.control
        if response.noCache || request.noCache { return .validate }
        let age = stored.freshness.age(at: now)
        let remaining = stored.freshness.remaining(at: now)
        let reloadsImmutable = response.immutable && remaining > 0
        if let maxAge = request.maxAge, age > Double(maxAge), !reloadsImmutable { return .validate }
        if let minFresh = request.minFresh, remaining < Double(minFresh) { return .validate }
        if remaining > 0 { return .serve(age: age) }
        if response.mustRevalidate { return .validate }
        if let maxStale = request.maxStale, -remaining <= Double(maxStale) { return .serveStale(age: age) }
        if let window = response.staleWhileRevalidate, -remaining <= Double(window) {
            return .serveWhileRevalidating(age: age)
        }
        return .validate
    }

    /// Whether `stored` may answer in place of a failure at `now` (RFC 5861 §4): the server answered 500, 502, 503
    /// or 504 or could not be reached, and the response or the request allows it with `stale-if-error` for this
    /// long past its freshness; never a response that says `must-revalidate` or `no-cache`.
    package static func servesOnError(_ stored: CachedResponse, request: CacheControl, at now: Date) -> Bool {
        let response = stored.control
        guard !response.mustRevalidate, !response.noCache,
            let window = request.staleIfError ?? response.staleIfError
        else { return false }
        return -stored.freshness.remaining(at: now) <= Double(window)
    }

    /// The statuses `stale-if-error` counts as errors of the server (RFC 5861 §4).
    package static func isServerError(_ status: Int) -> Bool { [500, 502, 503, 504].contains(status) }

    /// `request` made conditional on `stored` (§4.3.1): `If-None-Match` with its entity tag, `If-Modified-Since`
    /// with its `Last-Modified` date; `nil` when the response has neither (it can only be fetched again).
    package static func validation(of request: TransportRequest, for stored: CachedResponse) -> TransportRequest? {
        guard stored.hasValidator else { return nil }
        var request = request
        // Both values come from a header field the transport accepted: they are valid field values.
        if let tag = stored.entityTag {
            request.head.headerFields.set(HTTPHeaderField(uncheckedName: "If-None-Match", value: tag))
        }
        if let date = stored.lastModified {
            request.head.headerFields.set(HTTPHeaderField(uncheckedName: "If-Modified-Since", value: date))
        }
        return request
    }

    /// Whether a 304 with `head` validates `stored` (§4.3.4): it names the same entity tag (weakly compared), or
    /// none; a 304 that names another tag is about some other response.
    package static func validates(_ head: HTTPResponseHead, _ stored: CachedResponse) -> Bool {
        guard let tag = head.headerFields.value(for: "ETag") else { return true }
        guard let storedTag = stored.entityTag else { return false }
        return weakTag(tag) == weakTag(storedTag)
    }

    /// An entity tag without its weakness flag (`W/"x"` → `"x"`), trimmed.
    private static func weakTag(_ tag: String) -> Substring {
        let tag = CacheControl.trimmed(Substring(tag))
        return tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }

    /// Statuses whose caching rules the cache knows, for `must-understand` (§5.2.2.3): the heuristically
    /// cacheable ones and the other final statuses of RFC 9110 whose meaning does not depend on the request.
    private static let understoodStatuses: Set<Int> = CacheFreshness.heuristicallyCacheableStatuses.union([
        302, 303, 307,
    ])

    /// Why a response may not be stored, or `nil` when it may be stored and is worth storing (§3): complete,
    /// final (not 1xx, not a 206 or 304 that only completes another response), to a request whose `Cache-Control`
    /// lacks `no-store`, itself without `no-store` (unless `must-understand` with a status the cache understands) and
    /// without `Vary: *`; with explicit freshness, `public` or `private`, or a heuristically cacheable status; and
    /// either fresh for a while, able to be validated, or usable stale (`stale-while-revalidate`,
    /// `stale-if-error`). `private` does not stop it: NetKit's cache is private.
    ///
    /// The reason is the first rule the response fails, in the order above; the one reason this function cannot
    /// know, a response larger than the cache's bound, is the store's to find (``CacheEvent/NotStoredReason/tooLarge``).
    package static func storageRefusal(
        _ head: HTTPResponseHead,
        isComplete: Bool,
        request: CacheControl,
        requestTime: Date,
        responseTime: Date
    ) -> CacheEvent.NotStoredReason? {
        let status = head.statusCode
        guard isComplete else { return .incomplete }
        guard (200..<600).contains(status), status != 206, status != 304 else { return .status }
        if request.noStore { return .noStore }
        let fields = head.headerFields
        let control = CacheControl(fields)
        if control.mustUnderstand {
            guard understoodStatuses.contains(status) else { return .mustUnderstand }
        } else if control.noStore {
            return .noStore
        }
        guard CachedResponse.varyNames(fields) != nil else { return .varyAsterisk }
        let freshness = CacheFreshness(head: head, requestTime: requestTime, responseTime: responseTime)
        guard
            freshness.isExplicit || control.isPublic || control.isPrivate
                || CacheFreshness.heuristicallyCacheableStatuses.contains(status)
        else { return .statusNeedsExplicitFreshness }
        if fields.contains("ETag") || fields.contains("Last-Modified") { return nil }
        // Without a validator, a response that must be validated before each use could never be used; one that is
        // stale at once may still answer within its stale-while-revalidate or stale-if-error window.
        if control.noCache { return .noCacheWithoutValidator }
        let staleWindow = max(control.staleWhileRevalidate ?? 0, control.mustRevalidate ? 0 : control.staleIfError ?? 0)
        return freshness.lifetime > 0 || staleWindow > 0 ? nil : .noFreshnessOrValidator
    }
}
