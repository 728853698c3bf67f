/// What logging hides besides what it always hides (`Authorization`, `Proxy-Authorization`, `Cookie`,
/// `Set-Cookie`, secret-looking header and field names).
public struct RedactionRules: Sendable, Equatable {
    /// Which query values a logged URL hides.
    public enum QueryValues: Sendable, Equatable {
        /// Every value (the default): a query may carry anything.
        case all
        /// The values of these names (case-insensitive) and of secret-looking names; the others are shown.
        case named(Set<String>)
    }

    /// More header names whose values are hidden (case-insensitive).
    public var headerNames: Set<String>
    /// Which query values are hidden.
    public var queryValues: QueryValues

    /// Creates rules.
    public init(headerNames: Set<String> = [], queryValues: QueryValues = .all) {
        self.headerNames = Set(headerNames.map { $0.lowercased() })
        self.queryValues = queryValues
    }

    /// Hides every query value and the standard secret headers.
    public static let standard = RedactionRules()

    /// Whether the value of header `name` is hidden.
    public func hidesHeader(_ name: String) -> Bool {
        LogRedaction.isSecretName(name) || headerNames.contains(name.lowercased())
    }

    /// Whether the value of query item `name` is hidden.
    public func hidesQueryValue(_ name: String) -> Bool {
        switch queryValues {
        case .all: true
        case .named(let names):
            LogRedaction.isSecretName(name) || names.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
        }
    }
}
