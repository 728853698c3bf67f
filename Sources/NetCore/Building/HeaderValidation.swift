/// Checks header names and values before they are sent (RFC 9110 §5.1, §5.5).
///
/// A CR or LF in a header would let a value smuggle a second header or a second request; NUL truncates
/// values in C-based stacks. In Swift `"\r\n"` is one `Character`, so the checks look at Unicode scalars.
package enum HeaderValidation {
    /// `true` when `name` is a non-empty RFC 9110 token.
    package static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy(isTokenCharacter)
    }

    /// `true` when `value` holds no CR, LF or NUL.
    package static func isValidValue(_ value: String) -> Bool {
        !value.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }
    }

    /// Throws ``NetworkError/invalidHeader(name:)`` unless both name and value are valid.
    package static func validate(name: String, value: String) throws(NetworkError) {
        guard isValidName(name), isValidValue(value) else { throw .invalidHeader(name: printable(name)) }
    }

    /// Whether two header names are the same name: ASCII case-insensitive, as RFC 9110 §5.1 compares them
    /// (a non-ASCII name is not a valid token, and compares exactly). Foundation's `caseInsensitiveCompare`
    /// goes through locale-aware string comparison, which cost a request building several microseconds.
    package static func namesMatch(_ first: String, _ second: String) -> Bool {
        let a = first.utf8, b = second.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= UInt8(ascii: "a") && (x | 0x20) <= UInt8(ascii: "z"))
        }
    }

    /// The name with control characters escaped, safe to put in an error message or a log line.
    package static func printable(_ name: String) -> String {
        String(name.unicodeScalars.flatMap { scalar -> [Character] in
            scalar.value < 0x20 || scalar.value == 0x7F ? Array(scalar.escaped(asASCII: true)) : [Character(scalar)]
        })
    }

    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": true
        case "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~": true
        default: false
        }
    }
}
