/// Hides the values of secret-looking fields in a text body: `"access_token": "…"` in JSON, `token=…` in forms.
///
/// A scan over the text, not a parser: it must cope with the truncated prefix of a body.
enum BodyFieldRedaction {
    static func redact(_ text: String) -> String {
        redactForm(redactJSON(text))
    }

    /// `"name" : "value"` → `"name" : "<redacted>"` when the name looks secret.
    private static func redactJSON(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "\"", let keyEnd = closingQuote(in: scalars, from: index + 1) else {
                output.append(scalars[index])
                index += 1
                continue
            }
            let key = String(String.UnicodeScalarView(scalars[(index + 1)..<keyEnd]))
            output.append(contentsOf: scalars[index...keyEnd])
            index = keyEnd + 1
            var probe = index
            while probe < scalars.count, scalars[probe] == " " { probe += 1 }
            guard probe < scalars.count, scalars[probe] == ":", LogRedaction.isSecretName(key) else { continue }
            probe += 1
            while probe < scalars.count, scalars[probe] == " " { probe += 1 }
            output.append(contentsOf: scalars[index..<probe])
            index = probe
            guard index < scalars.count else { break }
            if scalars[index] == "\"" {
                let valueEnd = closingQuote(in: scalars, from: index + 1) ?? scalars.count - 1
                output.append(contentsOf: "\"\(LogRedaction.placeholder)\"".unicodeScalars)
                index = valueEnd + 1
            } else {
                // A number, literal or nested value: hide up to the next delimiter.
                while index < scalars.count, !Self.valueTerminators.contains(scalars[index]) { index += 1 }
                output.append(contentsOf: LogRedaction.placeholder.unicodeScalars)
            }
        }
        return String(output)
    }

    /// `name=value` pairs separated by `&` (form bodies), when the whole text looks like one.
    private static func redactForm(_ text: String) -> String {
        guard !text.contains(" "), !text.contains("\""), text.contains("=") else { return text }
        return text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            guard let equals = pair.firstIndex(of: "="), LogRedaction.isSecretName(String(pair[..<equals])) else {
                return String(pair)
            }
            return "\(pair[..<equals])=\(LogRedaction.placeholder)"
        }.joined(separator: "&")
    }

    private static let valueTerminators: Set<Unicode.Scalar> = [",", "}", "]", " "]

    private static func closingQuote(in scalars: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start
        while index < scalars.count {
            if scalars[index] == "\\" {
                index += 2
                continue
            }
            if scalars[index] == "\"" { return index }
            index += 1
        }
        return nil
    }
}
