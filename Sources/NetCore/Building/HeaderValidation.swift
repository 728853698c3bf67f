/// Checks header names and values before they are sent (RFC 9110 §5.1, §5.5).
///
/// A CR or LF in a header would let a value smuggle a second header or a second request; NUL truncates
/// values in C-based stacks. The checks read UTF-8 bytes: CR, LF, NUL and every token character are ASCII, and no
/// byte of a multi-byte UTF-8 sequence is (in Swift `"\r\n"` is one `Character`, which a check over characters
/// would miss).
package enum HeaderValidation {
    /// `true` when `name` is a non-empty RFC 9110 token.
    package static func isValidName(_ name: String) -> Bool {
        if let valid = name.utf8.withContiguousStorageIfAvailable({ !$0.isEmpty && $0.allSatisfy(isTokenByte) }) {
            return valid
        }
        return !name.utf8.isEmpty && name.utf8.allSatisfy(isTokenByte)
    }

    /// `true` when `value` holds no CR, LF or NUL.
    package static func isValidValue(_ value: String) -> Bool {
        if let valid = value.utf8.withContiguousStorageIfAvailable({ !$0.contains(where: isForbiddenValueByte) }) {
            return valid
        }
        return !value.utf8.contains(where: isForbiddenValueByte)
    }

    /// Throws ``NetworkError/invalidHeader(name:)`` unless both name and value are valid.
    package static func validate(name: String, value: String) throws(NetworkError) {
        guard isValidName(name), isValidValue(value) else { throw .invalidHeader(name: printable(name)) }
    }

    /// Whether two header names are the same name: ASCII case-insensitive, as RFC 9110 §5.1 compares them
    /// (a non-ASCII name is not a valid token, and compares exactly). Foundation's `caseInsensitiveCompare`
    /// goes through locale-aware string comparison, which cost a request building several microseconds.
    package static func namesMatch(_ first: String, _ second: String) -> Bool {
        let a = first.utf8
        let b = second.utf8
        guard a.count == b.count else { return false }
        // Native strings (every name NetKit builds) compare as byte buffers; the iterator road is the fallback.
        if let result = a.withContiguousStorageIfAvailable({ x in
            b.withContiguousStorageIfAvailable { y in
                for index in 0..<x.count where !bytesMatch(x[index], y[index]) { return false }
                return true
            }
        }), let result {
            return result
        }
        return zip(a, b).allSatisfy(bytesMatch)
    }

    private static func bytesMatch(_ x: UInt8, _ y: UInt8) -> Bool {
        x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= UInt8(ascii: "a") && (x | 0x20) <= UInt8(ascii: "z"))
    }

    /// `name` with ASCII letters lowercased (header names are ASCII tokens).
    package static func lowercased(_ name: String) -> String {
        // Over the contiguous bytes where the string has them: the view's own iteration costs more than the test.
        let hasUppercase =
            name.utf8.withContiguousStorageIfAvailable { $0.contains(where: isUppercaseByte) }
            ?? name.utf8.contains(where: isUppercaseByte)
        guard hasUppercase else { return name }
        return String(
            decoding: name.utf8.map { isUppercaseByte($0) ? $0 | 0x20 : $0 },
            as: UTF8.self)
    }

    private static func isUppercaseByte(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
    }

    /// The name with control characters escaped, safe to put in an error message or a log line.
    package static func printable(_ name: String) -> String {
        String(
            name.unicodeScalars.flatMap { scalar -> [Character] in
                scalar.value < 0x20 || scalar.value == 0x7F ? Array(scalar.escaped(asASCII: true)) : [Character(scalar)]
            })
    }

    private static func isForbiddenValueByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") || byte == 0
    }

    /// Whether `byte` may stand in an RFC 9110 token (a header name, a cookie name).
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"),
            UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
