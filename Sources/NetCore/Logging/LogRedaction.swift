#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Renders URLs, errors and bodies for log lines and error descriptions without the secrets they may carry.
///
/// Pure string work: nothing here sets a `URLComponents` part, so no input can make it trap.
package enum LogRedaction {
    /// What stands in for a hidden value.
    package static let placeholder = "<redacted>"

    /// `scheme://host:port/path?name=…`: query names are kept, their values hidden as `rules` say (all of them
    /// by default); user and password dropped.
    package static func url(_ url: URL?, rules: RedactionRules = .standard) -> String {
        guard let url else { return "-" }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return "<unparsable URL>"
        }
        var result = ""
        if let scheme = components.scheme { result += scheme + "://" }
        result += components.percentEncodedHost ?? ""
        if let port = components.port { result += ":\(port)" }
        result += components.percentEncodedPath
        if let query = components.percentEncodedQuery {
            result += "?" + redactedQuery(query, rules: rules)
        }
        return result
    }

    /// `scheme://authority/path?name=…` for a request's target, rendered from its parts (no URL is parsed): query
    /// names are kept, their values hidden as `rules` say.
    package static func target(_ head: HTTPRequestHead, rules: RedactionRules = .standard) -> String {
        var result = head.scheme + "://" + head.authority + head.pathWithoutQuery
        if let query = head.query { result += "?" + redactedQuery(String(query), rules: rules) }
        return result
    }

    /// A query string with values replaced by `…` as `rules` say, and those of the query items `rules` declare as
    /// credentials whatever their name (names stay: they say what was asked, not with what).
    package static func redactedQuery(_ query: String, rules: RedactionRules = .standard) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = pair[..<equals]
            guard rules.hidesQueryItem(encodedName: name) else { return String(pair) }
            return "\(name)=…"
        }.joined(separator: "&")
    }

    /// A one-line description of `error` fit for a log: no URLs, headers or query values.
    package static func describe(_ error: any Error) -> String {
        switch error {
        case is CancellationError:
            return "cancelled"
        case let error as TransportError:
            return "TransportError.\(error.kind): \(error.description)"
        case let error as any TransportErrorConvertible:
            // Another library's error (URLSession's `URLError`) whose own text may hold the full URL: its
            // translation names the kind and the host only.
            return "\(type(of: error)): \(error.transportError.description)"
        case let error as HTTPError:
            return error.description
        case let error as DecodingError:
            return DecodingErrorSummary.describe(error)
        case let error as any CustomStringConvertible:
            // Text NetKit does not know may quote the URL it failed on: its queries, fragments and passwords go.
            return "\(type(of: error)): \(hidingURLSecrets(in: error.description))"
        default:
            return "\(type(of: error))"
        }
    }

    /// `text` with every URL in it (`scheme://…`, up to a space or a quote) stripped of what may be secret: query
    /// values (as `rules` say), the fragment, and user and password.
    static func hidingURLSecrets(in text: String, rules: RedactionRules = .standard) -> String {
        guard text.contains("://") else { return text }
        var result = ""
        var rest = Substring(text)
        while let marker = rest.range(of: "://") {
            result += rest[..<marker.upperBound]
            let url = rest[marker.upperBound...]
            let end = url.firstIndex { $0.isWhitespace || "\"'<>`{}|\\^".contains($0) } ?? url.endIndex
            result += hidingSecrets(ofURLAfterScheme: url[..<end], rules: rules)
            rest = url[end...]
        }
        return result + rest
    }

    /// `authority/path?query#fragment` without user, password, query values and fragment.
    private static func hidingSecrets(ofURLAfterScheme url: Substring, rules: RedactionRules) -> String {
        let authorityEnd = url.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        var authority = url[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var rest = url[authorityEnd...]
        var fragment = ""
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest.index(after: hash) == rest.endIndex ? "#" : "#…"
            rest = rest[..<hash]
        }
        guard let question = rest.firstIndex(of: "?") else { return authority + rest + fragment }
        let query = String(rest[rest.index(after: question)...])
        return authority + rest[...question] + redactedQuery(query, rules: rules) + fragment
    }

    /// The first `limit` bytes of a body as text, with the values of secret-looking JSON or form fields hidden.
    ///
    /// A field is secret when its name contains `token`, `password`, `secret`, `authorization`, `cookie`,
    /// `session`, `api_key`/`apikey`, or `credential` (case-insensitive). Binary bodies are summarised by size.
    package static func bodyPrefix(_ data: Data, limit: Int = 200) -> String {
        guard !data.isEmpty else { return "" }
        let prefix = data.prefix(limit)
        guard let text = String(data: prefix, encoding: .utf8) ?? String(data: prefix.dropLast(3), encoding: .utf8),
            !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t" })
        else { return "<\(data.count) bytes of binary data>" }
        let flattened = String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
        let redacted = BodyFieldRedaction.redact(flattened)
        return data.count > limit ? redacted + "…" : redacted
    }

    /// Whether a field or header name looks like it names a secret.
    package static func isSecretName(_ name: String) -> Bool {
        // An ASCII name (every header name, most field names) is read as bytes: this runs for every header field of
        // every request the cache or the coalescer partitions, and Foundation's substring search on `lowercased()`
        // strings was most of what a cache hit cost. Other names keep the Unicode lowercasing.
        let count = name.utf8.count
        guard count <= 256, name.utf8.allSatisfy({ $0 < 0x80 }) else { return isSecretNameAsText(name) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { lowered in
            for (index, byte) in name.utf8.enumerated() {
                lowered[index] = (65...90).contains(byte) ? byte | 0x20 : byte
            }
            let bytes = UnsafeBufferPointer(lowered)
            if sensitiveNameBytes.contains(where: { $0.elementsEqual(bytes) }) { return true }
            if secretFragmentBytes.contains(where: { contains(bytes, $0) }) { return true }
            // A key header (`X-Functions-Key`, `Ocp-Apim-Subscription-Key`), but the idempotency key, which is no
            // secret and which the logs need to tell retries apart.
            let isKey =
                bytes.elementsEqual("key".utf8) || bytes.reversed().starts(with: "yek-".utf8)
                || bytes.reversed().starts(with: "yek_".utf8)
            return isKey && !bytes.elementsEqual("idempotency-key".utf8)
        }
    }

    /// ``isSecretName(_:)`` for a name that is not ASCII, through Unicode lowercasing.
    private static func isSecretNameAsText(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if HeaderRedaction.sensitiveNames.contains(lowered) { return true }
        if secretNameFragments.contains(where: { lowered.contains($0) }) { return true }
        return (lowered == "key" || lowered.hasSuffix("-key") || lowered.hasSuffix("_key"))
            && lowered != "idempotency-key"
    }

    /// Whether `bytes` holds `fragment` somewhere.
    private static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ fragment: [UInt8]) -> Bool {
        guard fragment.count <= bytes.count else { return false }
        for start in 0...(bytes.count - fragment.count)
        where bytes[start] == fragment[0] && bytes[start..<(start + fragment.count)].elementsEqual(fragment) {
            return true
        }
        return false
    }

    private static let sensitiveNameBytes = HeaderRedaction.sensitiveNames.map { Array($0.utf8) }
    private static let secretFragmentBytes = secretNameFragments.map { Array($0.utf8) }

    package static let secretNameFragments = [
        "token", "password", "passwd", "secret", "authorization", "cookie", "session", "api_key", "apikey", "api-key",
        "credential", "signature",
    ]
}
