/// Hides the values of headers that carry secrets before anything is logged or described.
package enum HeaderRedaction {
    /// Header names (lowercased) whose values are never shown: the request's credentials (`Authorization`,
    /// `Proxy-Authorization`, `Cookie`, API keys and tokens) and the response's (`Set-Cookie`, `Set-Cookie2`,
    /// `Authentication-Info`, `Proxy-Authentication-Info`).
    package static let sensitiveNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "set-cookie2", "authentication-info",
        "proxy-authentication-info", "x-api-key", "api-key", "x-auth-token", "x-access-token", "x-refresh-token",
        "x-csrf-token", "x-xsrf-token",
    ]

    /// `value`, or `<redacted>` when `name` is sensitive (or looks secret: see `LogRedaction.isSecretName(_:)`); a
    /// field that carries a URL (`Location`, `Referer`, `Link`…) with its query values hidden, as a logged URL's are.
    package static func redact(name: String, value: String) -> String {
        LogRedaction.isSecretName(name) ? LogRedaction.placeholder : queryHidden(name: name, value: value)
    }

    /// `value` with the query values of the URLs it carries hidden as `rules` say, when `name` is a field that
    /// carries one (``URLFieldRedaction``); else `value` as it is.
    package static func queryHidden(name: String, value: String, rules: RedactionRules = .standard) -> String {
        URLFieldRedaction.redact(name: name, value: value) { LogRedaction.redactedQuery(String($0), rules: rules) }
            ?? value
    }

    /// The headers as `Name: value` lines, sorted by name, secrets redacted.
    package static func describe(_ headers: [String: String]) -> String {
        headers.sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { "\($0.key): \(redact(name: $0.key, value: $0.value))" }
            .joined(separator: "\n")
    }

    /// The headers as `Name: value` strings, sorted by name, with the values of secret-looking names and of the
    /// header fields in `credentials` hidden: what mirrors show for a dictionary of headers.
    static func redactedLines(_ headers: [String: String], hiding credentials: CredentialFields = .standard)
        -> [String]
    {
        headers.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { name, value in
            let hidden = LogRedaction.isSecretName(name) || credentials.containsHeader(name)
            return "\(name): \(hidden ? LogRedaction.placeholder : queryHidden(name: name, value: value))"
        }
    }
}
