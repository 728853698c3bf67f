/// The parts of a request that carry a credential: header fields by name, query items by name.
///
/// One declaration drives every place a credential must be treated as one: which origins a request may carry it
/// to (``CredentialScope``), what a redirect to another origin drops (``RedirectPolicy``), how the response cache
/// and the coalescer tell callers apart, and what logs, cURL lines, error descriptions and `dump` hide.
///
/// ``standard`` holds `Authorization`, `Proxy-Authorization`, `Cookie` and every header whose name looks secret
/// (`X-API-Key`, `X-Auth-Token`, any name with `token`, `secret`, `password`… in it). A plugin declares the fields
/// it sets (``Plugin/credentialFields``; NetAuth's `TokenPlugin` declares its own header or query item), and the
/// engine adds fields of your own (``RequestExecutor/Configuration/credentialFields``):
///
/// ```swift
/// var executor = RequestExecutor(transport: transport)
/// executor.credentialFields = CredentialFields(headerNames: ["X-Functions-Key"], queryItemNames: ["sig"])
/// ```
///
/// Header names compare case-insensitively (ASCII only, as bytes); query item names compare exactly, as their
/// percent-encoded bytes.
public struct CredentialFields: Sendable, Hashable {
    /// The header names, ASCII-lowercased.
    public private(set) var headerNames: Set<String>
    /// The query item names, as they appear percent-encoded in a URL.
    public private(set) var queryItemNames: Set<String>
    /// Whether every header whose name looks secret counts too (``standard`` sets it).
    public private(set) var includesSecretLookingNames: Bool

    /// Declares header fields and query items that carry a credential.
    /// - Parameters:
    ///   - headerNames: Header names, any case.
    ///   - queryItemNames: Query item names as they appear percent-encoded in a URL (`api_key`, `X-Amz-Signature`).
    public init(headerNames: some Sequence<String> = [String](), queryItemNames: some Sequence<String> = [String]()) {
        self.headerNames = Set(headerNames.map(HeaderValidation.lowercased))
        self.queryItemNames = Set(queryItemNames)
        self.includesSecretLookingNames = false
    }

    /// No field at all.
    public static let none = CredentialFields()

    /// `Authorization`, `Proxy-Authorization`, `Cookie` and every header whose name looks secret: what every request
    /// treats as a credential, whatever else is declared.
    public static let standard: CredentialFields = {
        var fields = CredentialFields(headerNames: ["Authorization", "Proxy-Authorization", "Cookie"])
        fields.includesSecretLookingNames = true
        return fields
    }()

    /// A header field that carries a credential.
    public static func header(_ name: String) -> CredentialFields {
        CredentialFields(headerNames: [name])
    }

    /// A query item that carries a credential.
    public static func queryItem(_ name: String) -> CredentialFields {
        CredentialFields(queryItemNames: [name])
    }

    /// Whether the header field `name` carries a credential.
    public func containsHeader(_ name: String) -> Bool {
        headerNames.contains(HeaderValidation.lowercased(name))
            || (includesSecretLookingNames && LogRedaction.isSecretName(name))
    }

    /// Whether the query item `name` (percent-encoded, as in the URL) carries a credential.
    public func containsQueryItem(_ name: some StringProtocol) -> Bool {
        !queryItemNames.isEmpty && queryItemNames.contains(String(name))
    }

    /// Whether nothing is declared.
    public var isEmpty: Bool { headerNames.isEmpty && queryItemNames.isEmpty && !includesSecretLookingNames }

    /// These fields and `other`'s.
    public func union(_ other: CredentialFields) -> CredentialFields {
        var result = self
        result.formUnion(other)
        return result
    }

    /// Adds `other`'s fields.
    public mutating func formUnion(_ other: CredentialFields) {
        headerNames.formUnion(other.headerNames)
        queryItemNames.formUnion(other.queryItemNames)
        includesSecretLookingNames = includesSecretLookingNames || other.includesSecretLookingNames
    }

    /// The header fields of `fields` that carry a credential, in order.
    public func credentials(in fields: HTTPHeaderFields) -> [HTTPHeaderField] {
        fields.filter { containsHeader($0.name) }
    }
}
