#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The decisions of one request's redirect chain, as plain values: whether a response is a hop to follow, what
/// the next request may carry, and when the chain must end. ``RedirectStage`` carries them out (sends, drains the
/// `3xx`, asks the user's ``RedirectPolicy/decide``, resolves names).
package struct RedirectStateMachine: Sendable {
    /// What to do with a response.
    package enum Action: Sendable {
        /// Not a redirect to follow: the response is the answer.
        case deliver
        /// Follow the hop (unless the user's policy says otherwise).
        case propose(RedirectHop)
        /// End the request with this error.
        case fail(any Error)
    }

    private let policy: RedirectPolicy
    /// Hops followed so far.
    private(set) var hops = 0
    /// The method and URL of every request of the chain since the last response that set a cookie: coming back
    /// to one of them with nothing changed is a loop.
    private var visited: Set<String> = []

    package init(policy: RedirectPolicy) {
        self.policy = policy
    }

    /// Whether `head` is a redirect the engine looks at: `301`, `302`, `303`, `307` or `308` with a `Location`.
    static func isRedirect(_ head: HTTPResponseHead) -> Bool {
        switch head.statusCode {
        case 301, 302, 303, 307, 308: head.headerFields.contains("Location")
        default: false
        }
    }

    /// The fields that describe a body and go with it when a hop drops it.
    private static let bodyFieldNames = [
        "Content-Type", "Content-Length", "Content-Encoding", "Content-Language", "Content-Location",
    ]

    /// Judges the response `head` to `request` (the hop as the redirect stage sent it).
    package mutating func received(_ head: HTTPResponseHead, for request: TransportRequest) -> Action {
        guard policy.followsRedirects, Self.isRedirect(head), let current = request.head.url else { return .deliver }
        if head.headerFields.contains("Set-Cookie") {
            // A cookie changes the next request, even to the same URL: coming back is no longer a loop (the hop
            // count still ends a chain that never stops).
            visited.removeAll()
        } else {
            visited.insert(Self.visitKey(request.head))
        }
        let status = head.statusCode
        let from = HTTPOrigin(request.head)
        func failure(_ reason: RedirectError.Reason, to target: HTTPOrigin? = nil) -> Action {
            .fail(RedirectError(reason, statusCode: status, from: from, to: target))
        }
        let locations = head.headerFields.values(for: "Location")
        guard let location = locations.first, locations.allSatisfy({ $0 == location }), !location.isEmpty,
            let target = URL(string: location, relativeTo: current)?.absoluteURL
        else { return failure(.invalidLocation) }
        guard let scheme = target.scheme.map(HeaderValidation.lowercased), scheme == "http" || scheme == "https" else {
            return failure(.unsupportedScheme(target.scheme ?? ""))
        }
        guard let to = HTTPOrigin(target) else { return failure(.invalidLocation) }
        if to != from, target.user(percentEncoded: true) != nil || target.password(percentEncoded: true) != nil {
            return failure(.credentialsInLocation, to: to)
        }
        guard hops < policy.maximumHops else {
            return .fail(
                TransportError(
                    .tooManyRedirects, host: request.head.host, detail: "more than \(policy.maximumHops) redirects"))
        }
        var method = request.method
        var body = request.body
        var fields = request.head.headerFields
        if (status == 303 && method != .head) || ((status == 301 || status == 302) && method == .post) {
            method = .get
            body = nil
            for name in Self.bodyFieldNames { fields.removeValues(for: name) }
        }
        if to != from {
            let carried = policy.crossOriginFields
            fields = HTTPHeaderFields(
                fields.filter {
                    carried.contains(HeaderValidation.lowercased($0.name))
                        && !request.credentialFields.containsHeader($0.name)
                })
        }
        var next = request
        next.body = body
        do {
            next.head = try HTTPRequestHead(method: method, url: target, headerFields: fields)
        } catch {
            return failure(.invalidLocation, to: to)
        }
        if let refusal = refusal(of: next, from: from, status: status) { return .fail(refusal) }
        let hop = RedirectHop(response: head, from: current, to: target, number: hops + 1, request: next)
        return .propose(hop)
    }

    /// Checks a hop's request (the proposed one, or the user's own) against the rules every hop obeys; records
    /// it as followed when it passes.
    package mutating func follow(_ next: TransportRequest, after hop: RedirectHop) -> (any Error)? {
        // The origin that answered with the redirect (a URL with a host: it was a request's).
        let from = HTTPOrigin(hop.from) ?? HTTPOrigin(hop.request.head)
        let status = hop.response.statusCode
        let scheme = HeaderValidation.lowercased(next.head.scheme)
        guard scheme == "http" || scheme == "https" else {
            return RedirectError(.unsupportedScheme(next.head.scheme), statusCode: status, from: from, to: nil)
        }
        if let refusal = refusal(of: next, from: from, status: status) { return refusal }
        guard !visited.contains(Self.visitKey(next.head)) else {
            return TransportError(.tooManyRedirects, host: next.head.host, detail: "a redirect cycle")
        }
        hops += 1
        return nil
    }

    /// Why `next` may not follow a redirect from `from`, if it may not.
    private func refusal(of next: TransportRequest, from: HTTPOrigin, status: Int) -> RedirectError? {
        let to = HTTPOrigin(next.head)
        if from.isSecure, !to.isSecure, !policy.allowsInsecureDowngrade {
            return RedirectError(.insecureDowngrade, statusCode: status, from: from, to: to)
        }
        if let body = next.body, body.length != 0 {
            if to != from { return RedirectError(.bodyToAnotherOrigin, statusCode: status, from: from, to: to) }
            if !body.isReplayable {
                return RedirectError(.bodyNotReplayable, statusCode: status, from: from, to: to)
            }
        }
        return nil
    }

    private static func visitKey(_ head: HTTPRequestHead) -> String {
        "\(head.method.rawValue) \(HeaderValidation.lowercased(head.scheme))://\(HeaderValidation.lowercased(head.authority))\(head.path)"
    }
}
