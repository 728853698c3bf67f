/// Percent-encoding for the parts of a request NetKit writes itself (RFC 3986 §2.1).
package enum PercentEncoding {
    /// Encodes every byte outside RFC 3986's unreserved set, so `+ & = ; space` and non-ASCII come out encoded:
    /// what query components and form fields need.
    package static func encodeComponent(_ string: String) -> String {
        encode(string) { isUnreserved($0) }
    }

    /// Encodes what may not appear in a path segment, keeping `/` and well-formed `%XX` escapes a caller wrote.
    package static func encodePath(_ path: String) -> String {
        // Most paths need no escape at all: hand them back without building a new string.
        if path.utf8.allSatisfy({ isUnreserved($0) || isPathSafe($0) }) { return path }
        let bytes = Array(path.utf8)
        var result = ""
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) {
                result.append(String(decoding: bytes[index...index + 2], as: UTF8.self))
                index += 3
                continue
            }
            if isUnreserved(byte) || isPathSafe(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                appendEscape(byte, to: &result)
            }
            index += 1
        }
        return result
    }

    /// Decodes `%XX` escapes once; malformed escapes stay as they are.
    static func decodeOnce(_ string: String) -> String {
        let bytes = Array(string.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func encode(_ string: String, keeping keep: (UInt8) -> Bool) -> String {
        var result = ""
        result.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            if keep(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                appendEscape(byte, to: &result)
            }
        }
        return result
    }

    private static func appendEscape(_ byte: UInt8, to result: inout String) {
        let digits = Array("0123456789ABCDEF".unicodeScalars)
        result.unicodeScalars.append("%")
        result.unicodeScalars.append(digits[Int(byte >> 4)])
        result.unicodeScalars.append(digits[Int(byte & 0x0F)])
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// RFC 3986 `pchar` beyond unreserved (sub-delims, ":" and "@"), plus "/" between segments.
    private static func isPathSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="),
            UInt8(ascii: ":"), UInt8(ascii: "@"):
            true
        default:
            false
        }
    }

    private static func isHex(_ byte: UInt8) -> Bool { hexValue(byte) != nil }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
