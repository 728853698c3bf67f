import Foundation
import NetCore

extension HARRedaction {
    /// `fields` as HAR records, in order (repeated names kept), each value redacted as ``redactedValue(ofHeader:_:credentialFields:)``
    /// says.
    func records(of fields: HTTPHeaderFields, credentialFields: CredentialFields) -> [HARRecord] {
        fields.map { field in
            HARRecord(
                name: field.name,
                value: redactedValue(ofHeader: field.name, field.value, credentialFields: credentialFields))
        }
    }

    /// The value of the header `name` as it is written: the placeholder for a credential (a cookie keeps its name
    /// and attributes); a field that carries a URL (`Location`, `Referer`, each `<…>` of a `Link`: see
    /// `URLFieldRedaction`) with its credential query values replaced; any other value as it is.
    func redactedValue(ofHeader name: String, _ value: String, credentialFields: CredentialFields) -> String {
        guard redactsHeader(name, credentialFields: credentialFields) else {
            return URLFieldRedaction.redact(name: name, value: value) {
                redactedQuery($0, credentialFields: credentialFields)
            } ?? value
        }
        switch name.lowercased() {
        case "cookie": return Self.redactedCookies(value)
        case "set-cookie", "set-cookie2": return Self.redactedSetCookie(value)
        default: return Self.placeholder
        }
    }

    /// `url` (absolute or relative) with the values of its redacted query items replaced; the rest, percent-encoding
    /// included, as it is.
    func redactedURL(_ url: String, credentialFields: CredentialFields) -> String {
        URLFieldRedaction.redactingQuery(of: url) { redactedQuery($0, credentialFields: credentialFields) }
    }

    /// A percent-encoded query with the values of its redacted items replaced.
    func redactedQuery(_ query: Substring, credentialFields: CredentialFields) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            guard let equals = pair.firstIndex(of: "="),
                redactsQueryItem(String(pair[..<equals]), credentialFields: credentialFields)
            else { return String(pair) }
            return String(pair[..<equals]) + "=" + Self.placeholder
        }.joined(separator: "&")
    }

    /// The items of a percent-encoded query, decoded, in order, the values of redacted ones replaced.
    func queryRecords(_ query: Substring, credentialFields: CredentialFields) -> [HARRecord] {
        query.split(separator: "&").map { pair in
            let equals = pair.firstIndex(of: "=") ?? pair.endIndex
            let name = String(pair[..<equals])
            let value = String(pair[equals...].dropFirst())
            let shown =
                redactsQueryItem(name, credentialFields: credentialFields)
                ? Self.placeholder : (value.removingPercentEncoding ?? value)
            return HARRecord(name: name.removingPercentEncoding ?? name, value: shown)
        }
    }

    /// `a=1; b=2` → `a=REDACTED; b=REDACTED`: which cookies were sent, not what they hold.
    static func redactedCookies(_ value: String) -> String {
        value.split(separator: ";").map { part in
            let pair = part.trimmingCharacters(in: .whitespaces)
            guard let equals = pair.firstIndex(of: "=") else { return placeholder }
            return String(pair[..<equals]) + "=" + placeholder
        }.joined(separator: "; ")
    }

    /// `session=abc; Path=/; HttpOnly` → `session=REDACTED; Path=/; HttpOnly`: the cookie's name and attributes,
    /// not its value.
    static func redactedSetCookie(_ value: String) -> String {
        let end = value.firstIndex(of: ";") ?? value.endIndex
        let pair = value[..<end]
        let name = pair.firstIndex(of: "=").map { String(pair[..<$0]) + "=" } ?? ""
        return name + placeholder + String(value[end...])
    }
}
