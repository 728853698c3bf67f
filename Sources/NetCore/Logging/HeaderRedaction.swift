/// Hides the values of headers that carry secrets before anything is logged or described.
public enum HeaderRedaction {
    /// Header names (lowercased) whose values are never shown.
    public static let sensitiveNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key",
        "x-auth-token", "x-access-token", "x-refresh-token", "x-csrf-token", "x-xsrf-token",
    ]

    /// `value`, or `<redacted>` when `name` is sensitive (or looks secret: see ``LogRedaction/isSecretName(_:)``).
    public static func redact(name: String, value: String) -> String {
        LogRedaction.isSecretName(name) ? LogRedaction.placeholder : value
    }

    /// The headers as `Name: value` lines, sorted by name, secrets redacted.
    public static func describe(_ headers: [String: String]) -> String {
        headers.sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { "\($0.key): \(redact(name: $0.key, value: $0.value))" }
            .joined(separator: "\n")
    }
}
