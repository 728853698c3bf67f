#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whether a `curl` rendering hides secrets; hidden unless you name the other case on purpose.
public enum CURLSecrets: Sendable, Equatable {
    /// `Authorization`, cookies, secret-looking headers and body fields, every header and query item the request
    /// declares as a credential (``TransportRequest/credentialFields``: `X-Functions-Key`, a `TokenPlugin`'s query
    /// item), and query values (as ``RedactionRules`` say) are replaced by placeholders: the line is safe to keep in
    /// a log, but cannot be pasted as is.
    case hidden
    /// Everything is written as sent — tokens, cookies, query values, the body — so the line reproduces the
    /// request exactly. The line then holds credentials: for a developer's own machine, never a shipped build or
    /// a log that leaves it.
    case unredactedDoNotUseInProduction
}

/// A request rendered as a `curl` command line, for pasting into a terminal while debugging; secrets hidden (the
/// request's declared ``TransportRequest/credentialFields`` and what the rules say), unless
/// ``CURLSecrets/unredactedDoNotUseInProduction`` is asked for.
package enum CURLCommand {
    /// The largest in-memory body written out; a larger one, or a streamed one, is described instead.
    package static let maximumInlineBody = 4096

    /// `curl -X METHOD 'URL' -H 'Name: value' … --data-binary '…'`, with the headers in the order they are sent,
    /// every argument single-quoted for a POSIX shell.
    ///
    /// With `secrets: .unredactedDoNotUseInProduction` the line sends the same request: the same method (`--head`
    /// for HEAD, which `-X HEAD` would leave waiting for a body), target with its query, headers (an empty value
    /// as `Name;`, curl's way of sending one) and, for an in-memory UTF-8 body of at most
    /// ``maximumInlineBody`` bytes, the body. A binary, larger or streamed body is described, not written.
    package static func render(
        _ request: TransportRequest,
        rules: RedactionRules = .standard,
        secrets: CURLSecrets = .hidden
    ) -> String {
        let reveals = secrets == .unredactedDoNotUseInProduction
        // What the request itself declares is hidden whatever the rules say.
        let rules = rules.including(request.credentialFields)
        let target = reveals ? exactTarget(request.head) : LogRedaction.target(request.head, rules: rules)
        var parts = ["curl"]
        // curl expands `[…]` and `{…}` in a URL into several requests unless told not to.
        if reveals, target.contains(where: { "[]{}".contains($0) }) { parts.append("--globoff") }
        parts += request.method == .head ? ["--head"] : ["-X", request.method.rawValue]
        parts.append(quoted(target))
        for field in request.head.headerFields {
            let value =
                reveals
                ? field.value
                : rules.hidesHeader(field.name)
                    ? LogRedaction.placeholder
                    : HeaderRedaction.queryHidden(name: field.name, value: field.value, rules: rules)
            parts += ["-H", quoted(reveals && value.isEmpty ? "\(field.name);" : "\(field.name): \(value)")]
        }
        if let body = request.body {
            if let data = body.inMemoryData, data.count <= maximumInlineBody {
                if let text = String(validating: data, as: UTF8.self), !text.contains("\0") {
                    parts += ["--data-binary", quoted(reveals ? text : BodyFieldRedaction.redact(text))]
                } else {
                    parts += ["--data-binary", quoted("<\(data.count) bytes of binary data>")]
                }
            } else {
                let size = body.length.map { "\($0) bytes" } ?? "a body of unknown length"
                parts += ["--data-binary", quoted("<\(size), not shown>")]
            }
        }
        return parts.joined(separator: " ")
    }

    /// `scheme://authority/path?query` exactly as sent.
    private static func exactTarget(_ head: HTTPRequestHead) -> String {
        var result = head.scheme + "://" + head.authority + head.pathWithoutQuery
        if let query = head.query { result += "?" + query }
        return result
    }

    /// Single-quoted for a POSIX shell: a `'` inside becomes `'\''`.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacing("'", with: #"'\''"#) + "'"
    }
}
