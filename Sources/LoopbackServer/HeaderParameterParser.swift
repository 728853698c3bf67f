/// Parses header values of the form `type; name=value; name="quoted \"value\""` (RFC 9110 §5.6.6,
/// RFC 2045 §5.1, RFC 6266 §4.1), byte by byte so UTF-8 in quoted strings passes through untouched.
enum HeaderParameterParser {
    /// The leading token (e.g. `multipart/form-data`, `form-data`) and the parameters, names lowercased.
    struct Parsed {
        let value: String
        let parameters: [(name: String, value: String)]
    }

    /// Returns `nil` for anything outside the grammar, including duplicate parameter names,
    /// since a strict checker must not guess which duplicate the sender meant.
    static func parse(_ text: String) -> Parsed? {
        let bytes = Array(text.utf8)
        var index = 0
        skipWhitespace(bytes, &index)
        let valueStart = index
        while index < bytes.count, isToken(bytes[index]) || bytes[index] == UInt8(ascii: "/") { index += 1 }
        guard index > valueStart else { return nil }
        let value = String(decoding: bytes[valueStart..<index], as: UTF8.self)
        var parameters: [(name: String, value: String)] = []
        // Each round consumes at least one byte (the `;`) or returns, so it ends within bytes.count rounds.
        while true {
            skipWhitespace(bytes, &index)
            if index == bytes.count { break }
            guard bytes[index] == UInt8(ascii: ";") else { return nil }
            index += 1
            skipWhitespace(bytes, &index)
            let nameStart = index
            while index < bytes.count, isToken(bytes[index]) { index += 1 }
            guard index > nameStart else { return nil }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            skipWhitespace(bytes, &index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return nil }
            index += 1
            skipWhitespace(bytes, &index)
            guard let parameterValue = parseValue(bytes, &index) else { return nil }
            guard !parameters.contains(where: { $0.name == name }) else { return nil }
            parameters.append((name: name, value: parameterValue))
        }
        return Parsed(value: value, parameters: parameters)
    }

    /// RFC 9110 `tchar`.
    static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    private static func skipWhitespace(_ bytes: [UInt8], _ index: inout Int) {
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
            index += 1
        }
    }

    /// A token, or a quoted-string with its quoted-pairs unescaped; the result must be valid UTF-8.
    private static func parseValue(_ bytes: [UInt8], _ index: inout Int) -> String? {
        guard index < bytes.count else { return nil }
        if bytes[index] != UInt8(ascii: "\"") {
            let start = index
            while index < bytes.count, isToken(bytes[index]) { index += 1 }
            guard index > start else { return nil }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        index += 1
        var output: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(validating: output, as: UTF8.self)
            case UInt8(ascii: "\\"):
                // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
                guard index + 1 < bytes.count, isQuotedPairable(bytes[index + 1]) else { return nil }
                output.append(bytes[index + 1])
                index += 2
            default:
                guard isQuotedText(byte) else { return nil }
                output.append(byte)
                index += 1
            }
        }
        return nil
    }

    /// RFC 9110 `qdtext`.
    private static func isQuotedText(_ byte: UInt8) -> Bool {
        byte == 0x09 || byte == 0x20 || byte == 0x21 || (0x23...0x5B).contains(byte)
            || (0x5D...0x7E).contains(byte) || byte >= 0x80
    }

    private static func isQuotedPairable(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x7E).contains(byte) || byte >= 0x80
    }
}
