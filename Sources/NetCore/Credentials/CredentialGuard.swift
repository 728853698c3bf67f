/// Keeps one request's credentials to the origins they were given for, on every hop: the rule of
/// ``CredentialScope`` as the engine applies it just before the cookie jar and the transport.
///
/// At an origin the scope allows, the request goes as the stages made it. Anywhere else every field and query item
/// the request declares as a credential (``TransportRequest/credentialFields``) goes, except those the request set
/// itself for its own origin (an endpoint's own `headers`, its own query): the engine's token, plugins' keys and
/// credential default headers never reach an origin they were not given for.
package struct CredentialGuard: Sendable {
    /// What the request set itself: the credential fields and query items of its own, and the origin they are for.
    package struct Own: Sendable {
        package var origin: HTTPOrigin
        package var fields: [HTTPHeaderField]
        package var queryItems: [Substring]
    }

    package let scope: CredentialScope
    /// The base URL's origin.
    package let base: HTTPOrigin?
    /// The request's own credentials, when its origin is outside the scope (elsewhere they are never needed).
    package let own: Own?

    /// A guard that lets everything through.
    package static let open = CredentialGuard(scope: .anyOrigin, base: nil, own: nil)

    package init(scope: CredentialScope, base: HTTPOrigin?, own: Own?) {
        self.scope = scope
        self.base = base
        self.own = own
    }

    /// The guard of `request` (as built, before any stage) for an engine whose base URL has the origin `base`;
    /// `ownFieldNames` says which of its header fields the request set itself (rather than a default).
    package init(
        for request: TransportRequest, scope: CredentialScope, base: HTTPOrigin?, ownFieldNames: (String) -> Bool
    ) {
        self.scope = scope
        self.base = base
        let origin = HTTPOrigin(request.head)
        guard !scope.allows(origin, base: base) else {
            self.own = nil
            return
        }
        let declared = request.credentialFields
        let fields = request.head.headerFields.filter { declared.containsHeader($0.name) && ownFieldNames($0.name) }
        let items = Self.queryItems(of: request.head).filter { declared.containsQueryItem(Self.name(of: $0)) }
        self.own = Own(origin: origin, fields: Array(fields), queryItems: items)
    }

    /// Whether the engine's own credentials (the bearer token, a renewal) may go to `head`'s origin.
    package func allowsEngineCredentials(_ head: HTTPRequestHead) -> Bool {
        scope.allowsAnyOrigin || scope.allows(HTTPOrigin(head), base: base)
    }

    /// Removes from `request` every credential its origin may not receive.
    package func apply(to request: inout TransportRequest) {
        guard !scope.allowsAnyOrigin else { return }
        let origin = HTTPOrigin(request.head)
        guard !scope.allows(origin, base: base) else { return }
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
