/// What logging hides besides what it always hides (`Authorization`, `Proxy-Authorization`, `Cookie`,
/// `Set-Cookie`, `Authentication-Info`, secret-looking header and field names).
///
/// `LoggingPlugin` and `CURLCommand` add each request's own ``TransportRequest/credentialFields`` (what its plugins
/// and the engine declare, such as `TokenPlugin`'s header or query item) to these rules: a declared field is hidden
/// whatever ``queryValues`` says.
public struct RedactionRules: Sendable, Equatable {
    /// Which query values a logged URL hides.
    public enum QueryValues: Sendable, Equatable {
        /// Every value (the default): a query may carry anything.
        case all
        /// The values of these names (case-insensitive) and of secret-looking names; the others are shown.
        case named(Set<String>)
        /// Every value but those of these names (case-insensitive), for a debug log that should show the page or
        /// the filter a request chose (`.shown(["page", "sort"])` logs `?page=2&sort=name&q=…`). A secret-looking
        /// name or a declared credential stays hidden even when named here.
        case shown(Set<String>)
    }

    /// More header names whose values are hidden (case-insensitive).
    public var headerNames: Set<String>
    /// Which query values are hidden.
    public var queryValues: QueryValues
    /// Fields that carry a credential: their header values and query values are hidden, whatever
    /// ``queryValues`` says.
    public var credentialFields: CredentialFields

    /// Creates rules.
    public init(headerNames: Set<String> = [], queryValues: QueryValues = .all) {
        self.init(headerNames: headerNames, queryValues: queryValues, credentialFields: .none)
    }

    /// Creates rules that also hide `credentialFields` (header and query values) wherever they appear.
    public init(headerNames: Set<String> = [], queryValues: QueryValues = .all, credentialFields: CredentialFields) {
        self.headerNames = Set(headerNames.map { $0.lowercased() })
        self.queryValues = queryValues
        self.credentialFields = credentialFields
    }

    /// These rules, hiding `fields` too (a request's ``TransportRequest/credentialFields``).
    package func including(_ fields: CredentialFields) -> RedactionRules {
        var rules = self
        rules.credentialFields.formUnion(fields)
        return rules
    }

    /// Hides every query value and the standard secret headers.
    public static let standard = RedactionRules()

    /// Whether the value of header `name` is hidden.
    public func hidesHeader(_ name: String) -> Bool {
        LogRedaction.isSecretName(name) || headerNames.contains(name.lowercased())
            || credentialFields.containsHeader(name)
    }

    /// Whether the value of the query item named `encodedName` (percent-encoded, as in the URL) is hidden: a
    /// declared credential, or a name ``hidesQueryValue(_:)`` hides once decoded.
    func hidesQueryItem(encodedName: some StringProtocol) -> Bool {
        credentialFields.containsQueryItem(encodedName)
            || hidesQueryValue(PercentEncoding.decodeOnce(String(encodedName)))
    }

    /// Whether the value of query item `name` (decoded) is hidden.
    public func hidesQueryValue(_ name: String) -> Bool {
        switch queryValues {
        case .all: true
        case .named(let names):
            LogRedaction.isSecretName(name) || names.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
        case .shown(let names):
            LogRedaction.isSecretName(name) || !names.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
        }
    }
}
