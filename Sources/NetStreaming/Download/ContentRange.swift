/// A `Content-Range` field value of the `bytes` unit (RFC 9110 §14.4): the part a 206 carries, or the length a 416
/// names.
///
/// Parsed from the field's bytes, never through `String` comparison, so that no Unicode equivalence can make two
/// different values look alike.
struct ContentRange: Sendable, Equatable {
    /// The first and last byte offsets of the part, inclusive; `nil` for an unsatisfied range (`bytes */N`).
    var part: ClosedRange<Int64>?
    /// The representation's whole length; `nil` when the server wrote `*`.
    var completeLength: Int64?

    /// Parses `value`; `nil` for anything but one well-formed `bytes` range (RFC 9110 §14.4's grammar).
    init?(_ value: String) {
        var bytes = Substring(value).utf8[...]
        // The unit is case-insensitive (RFC 9110 §14.1).
        let unit = Array("bytes ".utf8)
        guard bytes.count > unit.count,
            zip(bytes.prefix(unit.count), unit).allSatisfy({ $0 | 0x20 == $1 | 0x20 })
        else { return nil }
        bytes = bytes.dropFirst(unit.count)
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let range = bytes[..<slash]
        let length = bytes[bytes.index(after: slash)...]
        if length.elementsEqual("*".utf8) {
            completeLength = nil
        } else {
            guard let parsed = Self.number(length) else { return nil }
            completeLength = parsed
        }
        if range.elementsEqual("*".utf8) {
            // An unsatisfied range must name the length.
            guard completeLength != nil else { return nil }
            part = nil
        } else {
            guard let dash = range.firstIndex(of: UInt8(ascii: "-")),
                let first = Self.number(range[..<dash]),
                let last = Self.number(range[range.index(after: dash)...]),
                first <= last
            else { return nil }
            if let completeLength, last >= completeLength { return nil }
            part = first...last
        }
    }

    /// A non-negative decimal of at most 18 digits (no overflow, no sign, no spaces).
    private static func number(_ digits: Substring.UTF8View.SubSequence) -> Int64? {
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value: Int64 = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        return value
    }
}
