#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request rendered as a `curl` command line, for pasting into a terminal while debugging; secrets hidden as
/// the rules say.
public enum CURLCommand {
    /// The largest in-memory body written out; a larger one, or a streamed one, is described instead.
    public static let maximumInlineBody = 4096

    /// `curl -X METHOD 'URL' -H 'Name: value' … --data-binary '…'`, with the headers in the order they are sent.
    public static func render(_ request: TransportRequest, rules: RedactionRules = .standard) -> String {
        var parts = ["curl", "-X", request.method.rawValue, quoted(LogRedaction.target(request.head, rules: rules))]
        for field in request.head.headerFields {
            parts += ["-H", quoted("\(field.name): \(rules.hidesHeader(field.name) ? LogRedaction.placeholder : field.value)")]
        }
        if let body = request.body {
            if let data = body.inMemoryData, data.count <= maximumInlineBody {
                if let text = String(validating: data, as: UTF8.self) {
                    parts += ["--data-binary", quoted(BodyFieldRedaction.redact(text))]
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

    /// Single-quoted for a POSIX shell: a `'` inside becomes `'\''`.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacing("'", with: #"'\''"#) + "'"
    }
}
