/// Percent-decoding and `&`/`=` splitting, following the WHATWG URL standard's
/// "percent-decode" and "application/x-www-form-urlencoded parser" algorithms.
enum PercentDecoding {
    /// Splits `bytes` into ordered name/value pairs.
    ///
    /// Empty sequences between `&` are skipped and a sequence without `=` is a name with an empty
    /// value, as WHATWG specifies. `plusAsSpace` is the form rule; a URL query keeps `+` as is.
    static func pairs(_ bytes: [UInt8], plusAsSpace: Bool) -> [(name: String, value: String)] {
        bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { sequence in
            if let equals = sequence.firstIndex(of: UInt8(ascii: "=")) {
                return (
                    name: decode(sequence[..<equals], plusAsSpace: plusAsSpace),
                    value: decode(sequence[sequence.index(after: equals)...], plusAsSpace: plusAsSpace)
                )
            }
            return (name: decode(sequence, plusAsSpace: plusAsSpace), value: "")
        }
    }

    /// Decodes `%XX` escapes; a `%` not followed by two hex digits stays literal (WHATWG), and
    /// invalid UTF-8 becomes U+FFFD, so decoding never fails.
    static func decode(_ bytes: some Collection<UInt8>, plusAsSpace: Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                if first != bytes.endIndex, bytes.index(after: first) != bytes.endIndex,
                    let high = hexValue(bytes[first]), let low = hexValue(bytes[bytes.index(after: first)])
                {
                    output.append(high << 4 | low)
                    index = bytes.index(first, offsetBy: 2)
                    continue
                }
            }
            output.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index = bytes.index(after: index)
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
