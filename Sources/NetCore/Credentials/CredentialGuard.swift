#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Keeps one request's credentials to the origins they were given for, on every hop: the rule of
/// ``CredentialScope`` as the engine applies it just before the cookie jar and the transport.
///
/// At an origin the scope allows, the request goes as the stages made it. Anywhere else every field and query item
/// the request declares as a credential (``TransportRequest/credentialFields``) goes, except those the request set
/// itself for its own origin (an endpoint's own `headers`, its own query): the engine's token, plugins' keys and
/// credential default headers never reach an origin they were not given for.
package final class CredentialGuard: Sendable {
    /// What the request set itself: the credential fields and query items of its own, and the origin they are for.
    package struct Own: Sendable {
        package var origin: HTTPOrigin
        package var fields: [HTTPHeaderField]
        package var queryItems: [Substring]
    }

    package let scope: CredentialScope
    /// The base URL, whose origin the credentials are for.
    package let baseURL: URL?
    /// The scheme and authority of the base URL as a request built under it carries them: a request to exactly these
    /// is at the base origin, known without working an origin out (the common case, on every hop).
    private let baseTarget: (scheme: String, authority: String)?
    /// The request's own credentials, when its origin is outside the scope (elsewhere they are never needed).
    package let own: Own?

    /// A guard that lets everything through.
    package static let open = CredentialGuard(scope: .anyOrigin, baseURL: nil, baseTarget: nil, own: nil)

    private init(
        scope: CredentialScope, baseURL: URL?, baseTarget: (scheme: String, authority: String)?, own: Own?
    ) {
        self.scope = scope
        self.baseURL = baseURL
        self.baseTarget = baseTarget
        self.own = own
    }

    /// The guard of `request` (as built, before any stage) for an engine whose base URL is `baseURL`;
    /// `isAtBase` says the request was built under `baseURL` itself (its origin is the base's), and
    /// `ownFieldNames` which of its header fields the request set itself (rather than a default).
    package init(
        for request: TransportRequest, scope: CredentialScope, baseURL: URL?, isAtBase: Bool,
        ownFieldNames: (String) -> Bool
    ) {
        self.scope = scope
        self.baseURL = baseURL
        self.baseTarget = isAtBase ? (request.head.scheme, request.head.authority) : nil
        guard !isAtBase, !scope.allowsAnyOrigin else {
            self.own = nil
            return
        }
        let origin = HTTPOrigin(request.head)
        guard !scope.allows(origin, base: baseURL.flatMap(HTTPOrigin.init)) else {
            self.own = nil
            return
        }
        let declared = request.credentialFields
        let fields = request.head.headerFields.filter { declared.containsHeader($0.name) && ownFieldNames($0.name) }
        let items = Self.queryItems(of: request.head).filter { declared.containsQueryItem(Self.name(of: $0)) }
        self.own = Own(origin: origin, fields: Array(fields), queryItems: items)
    }

    /// Whether the origin of `scheme` and `authority` may receive the engine's credentials. Asked with a request
    /// head's two fields, not the head: passing a request's head copied it whole, on every request (counted).
    package func allows(scheme: String, authority: String) -> Bool {
        if scope.allowsAnyOrigin { return true }
        if let baseTarget, scheme == baseTarget.scheme, authority == baseTarget.authority { return true }
        return scope.allows(
            HTTPOrigin(scheme: scheme, authority: authority), base: baseURL.flatMap(HTTPOrigin.init))
    }

    /// Removes from `request` every credential its origin may not receive, and tells the transport whether its own
    /// may go (``TransportRequest/allowsTransportCredentials``).
    package func apply(to request: inout TransportRequest) {
        guard !allows(scheme: request.head.scheme, authority: request.head.authority) else {
            // Back at an allowed origin after a hop outside: the transport's credentials go again. Read first: a
            // write would copy a request whose storage other copies share, on every request.
            if !request.allowsTransportCredentials { request.allowsTransportCredentials = true }
            return
        }
        request.allowsTransportCredentials = false
        let origin = HTTPOrigin(request.head)
        let declared = request.credentialFields
        let own = self.own?.origin == origin ? self.own : nil
        let fields = request.head.headerFields
        if fields.contains(where: { declared.containsHeader($0.name) }) {
            request.head.headerFields = HTTPHeaderFields(
                fields.filter { !declared.containsHeader($0.name) || own?.fields.contains($0) == true })
        }
        guard !declared.queryItemNames.isEmpty, request.head.query != nil else { return }
        let items = Self.queryItems(of: request.head)
        let kept = items.filter {
            !declared.containsQueryItem(Self.name(of: $0)) || own?.queryItems.contains($0) == true
        }
        guard kept.count != items.count else { return }
        // The items were taken from a valid query: what is left of them is one too.
        try? request.head.setQuery(kept.isEmpty ? nil : kept.joined(separator: "&"))
    }

    private static func queryItems(of head: HTTPRequestHead) -> [Substring] {
        head.query?.split(separator: "&", omittingEmptySubsequences: false) ?? []
    }

    private static func name(of item: Substring) -> Substring {
        item.firstIndex(of: "=").map { item[..<$0] } ?? item
    }
}
