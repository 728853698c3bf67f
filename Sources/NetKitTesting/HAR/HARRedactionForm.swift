import Foundation

/// Replaces the values of named fields in an `application/x-www-form-urlencoded` text that arrives in pieces
/// (`password=hunter2&user=ann` → `password=REDACTED&user=ann`), every other byte kept, in bounded memory.
struct HARRedactionForm {
    /// Whether a field's value is replaced, by its decoded name.
    private let redacts: @Sendable (String) -> Bool
    /// The raw bytes of the name being read, up to ``longestName``.
    private var name: [UInt8] = []
    private var nameTooLong = false
    private var inValue = false
    /// Whether the value being read is dropped.
    private var dropping = false
    /// How many values were replaced.
    private(set) var redactions = 0

    /// Longer names are not compared (no redacted name is this long), so a name costs bounded memory.
    private static let longestName = 1024

    init(redacts: @escaping @Sendable (String) -> Bool) {
        self.redacts = redacts
    }

    /// Redacts the next bytes of the text into `output`.
    mutating func feed(_ bytes: some Sequence<UInt8>, into output: inout Data) {
        for byte in bytes {
            if byte == UInt8(ascii: "&") {
                output.append(byte)
                name.removeAll(keepingCapacity: true)
                nameTooLong = false
                inValue = false
                dropping = false
            } else if inValue {
                if !dropping { output.append(byte) }
            } else if byte == UInt8(ascii: "=") {
                output.append(byte)
                inValue = true
                dropping = !nameTooLong && redacts(Self.decoded(name))
                if dropping {
                    output.append(contentsOf: HARRedaction.placeholder.utf8)
                    redactions += 1
                }
            } else {
                output.append(byte)
                if name.count == Self.longestName { nameTooLong = true } else { name.append(byte) }
            }
        }
    }

    /// A form name as it reads: `+` a space, percent escapes decoded.
    private static func decoded(_ raw: [UInt8]) -> String {
        let text = String(decoding: raw.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
        return text.removingPercentEncoding ?? text
    }
}
