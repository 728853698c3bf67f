import Foundation

/// A request rendered as a `curl` command line, for pasting into a terminal while debugging; secrets hidden as
/// the rules say.
public enum CURLCommand {
    /// The largest in-memory body written out; a larger one, or a streamed one, is described instead.
    public static let maximumInlineBody = 4096

    /// `curl -X METHOD 'URL' -H 'Name: value' … --data-binary '…'`, with headers sorted by name.
    public static func render(_ request: TransportRequest, rules: RedactionRules = .standard) -> String {
        var parts = ["curl", "-X", request.method, quoted(LogRedaction.url(request.url, rules: rules))]
        let headers = (request.head.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        for (name, value) in headers {
            parts += ["-H", quoted("\(name): \(rules.hidesHeader(name) ? LogRedaction.placeholder : value)")]
        }
        switch request.payload {
        case .empty:
            break
        case .data(let data) where data.count <= maximumInlineBody:
            if let text = String(data: data, encoding: .utf8) {
                parts += ["--data-binary", quoted(BodyFieldRedaction.redact(text))]
            } else {
                parts += ["--data-binary", quoted("<\(data.count) bytes of binary data>")]
            }
        default:
            let size = request.payload.knownLength.map { "\($0) bytes" } ?? "a body of unknown length"
            parts += ["--data-binary", quoted("<\(size), not shown>")]
        }
        return parts.joined(separator: " ")
    }

    /// Single-quoted for a POSIX shell: a `'` inside becomes `'\''`.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
