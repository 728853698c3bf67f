import Foundation

/// Replaces the values of named object members in a JSON text that arrives in pieces, at any depth, keeping every
/// other byte as it is (order, spacing, number spellings): a body of any size is redacted on its way to its file,
/// in bounded memory, and an inline one reads as the server sent it, secrets aside.
///
/// A byte-level reader of JSON's structure, not a parser into values: a redacted value (a string, a number, an
/// object…) is replaced by the placeholder as a JSON string the moment it starts, and its bytes are dropped until it
/// ends, so valid JSON stays valid, and a body cut short keeps no part of a secret it was sending. A text that stops
/// being JSON keeps the redactions made before that point and the rest as it is, except inside a value being
/// redacted, whose rest is dropped (the secret never reaches the file).
struct HARRedactionJSON {
    /// Whether a member's value is replaced, by its decoded name.
    private let redacts: @Sendable (String) -> Bool
    /// The containers open around the current byte: `{` or `[`.
    private var stack: [UInt8] = []
    private var expect = Expect.value
    private var token = Token.none
    /// The raw bytes of the member name being read (escapes undecoded), up to ``longestName``.
    private var name: [UInt8] = []
    private var nameTooLong = false
    /// Whether the value about to start belongs to a redacted member.
    private var redactsNext = false
    /// The depth (``stack``'s count) at which the value being dropped started; `nil` when bytes are kept.
    private var droppingFrom: Int?
    /// Whether the text stopped being JSON.
    private var failed = false
    /// How many values were replaced.
    private(set) var redactions = 0

    /// Longer member names are not compared (no redacted name is this long), so a name costs bounded memory.
    private static let longestName = 1024
    private static let placeholder = Array("\"\(HARRedaction.placeholder)\"".utf8)

    private enum Expect {
        case value, valueOrClose, name, nameOrClose, colon, commaOrClose
    }

    private enum Token {
        case none, literal
        case string(isName: Bool)
        case escape(isName: Bool)
    }

    init(redacts: @escaping @Sendable (String) -> Bool) {
        self.redacts = redacts
    }

    /// Redacts the next bytes of the text into `output`.
    mutating func feed(_ bytes: Data, into output: inout Data) {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if failed, droppingFrom == nil {
                // No longer JSON, and no secret being dropped: the rest is kept whole, without a look at each byte.
                output.append(bytes[index...])
                return
            }
            feed(bytes[index], into: &output)
            index += 1
        }
    }

    private mutating func feed(_ byte: UInt8, into output: inout Data) {
        if failed {
            keep(byte, in: &output)
            return
        }
        switch token {
        case .string(let isName):
            keep(byte, in: &output)
            if byte == UInt8(ascii: "\\") {
                collect(byte, isName)
                token = .escape(isName: isName)
            } else if byte == UInt8(ascii: "\"") {
                token = .none
                if isName { nameEnded() } else { valueEnded() }
            } else if byte < 0x20 {
                failed = true
            } else {
                collect(byte, isName)
            }
            return
        case .escape(let isName):
            keep(byte, in: &output)
            collect(byte, isName)
            token = .string(isName: isName)
            return
        case .literal:
            if Self.isLiteral(byte) {
                keep(byte, in: &output)
                return
            }
            token = .none
            valueEnded()
        case .none:
            break
        }
        structural(byte, into: &output)
    }

    /// A byte outside strings and literals.
    private mutating func structural(_ byte: UInt8, into output: inout Data) {
        if Self.isWhitespace(byte) {
            keep(byte, in: &output)
            return
        }
        switch expect {
        case .valueOrClose where byte == UInt8(ascii: "]"), .nameOrClose where byte == UInt8(ascii: "}"):
            close(byte, into: &output)
        case .value, .valueOrClose:
            startValue(byte, into: &output)
        case .name, .nameOrClose:
            guard byte == UInt8(ascii: "\"") else { return fail(byte, into: &output) }
            keep(byte, in: &output)
            name.removeAll(keepingCapacity: true)
            nameTooLong = false
            token = .string(isName: true)
        case .colon:
            guard byte == UInt8(ascii: ":") else { return fail(byte, into: &output) }
            keep(byte, in: &output)
            expect = .value
        case .commaOrClose:
            if byte == UInt8(ascii: ",") {
                keep(byte, in: &output)
                expect = stack.last == UInt8(ascii: "{") ? .name : .value
            } else if (byte == UInt8(ascii: "}") && stack.last == UInt8(ascii: "{"))
                || (byte == UInt8(ascii: "]") && stack.last == UInt8(ascii: "["))
            {
                close(byte, into: &output)
            } else {
                fail(byte, into: &output)
            }
        }
    }

    private mutating func startValue(_ byte: UInt8, into output: inout Data) {
        let isStart =
            byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "\"")
            || byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "t") || byte == UInt8(ascii: "f") || byte == UInt8(ascii: "n")
        guard isStart else { return fail(byte, into: &output) }
        if redactsNext {
            redactsNext = false
            if droppingFrom == nil {
                output.append(contentsOf: Self.placeholder)
                droppingFrom = stack.count
                redactions += 1
            }
        }
        keep(byte, in: &output)
        switch byte {
        case UInt8(ascii: "{"):
            stack.append(byte)
            expect = .nameOrClose
        case UInt8(ascii: "["):
            stack.append(byte)
            expect = .valueOrClose
        case UInt8(ascii: "\""):
            token = .string(isName: false)
        default:
            token = .literal
        }
    }

    private mutating func close(_ byte: UInt8, into output: inout Data) {
        keep(byte, in: &output)
        stack.removeLast()
        valueEnded()
    }

    private mutating func nameEnded() {
        redactsNext = !nameTooLong && redacts(Self.decoded(name))
        expect = .colon
    }

    private mutating func valueEnded() {
        if droppingFrom == stack.count { droppingFrom = nil }
        // After the last top-level value another may follow (a sequence of documents is redacted alike).
        expect = stack.isEmpty ? .value : .commaOrClose
    }

    /// Ends the text: a literal at its very end (`{"a":1` cut short, or a bare `12`) is complete.
    mutating func finish() {
        if case .literal = token, !failed {
            token = .none
            valueEnded()
        }
    }

    private mutating func fail(_ byte: UInt8, into output: inout Data) {
        failed = true
        keep(byte, in: &output)
    }

    /// Writes `byte` unless it belongs to a value being dropped (which, once the text has failed, is all the rest).
    private func keep(_ byte: UInt8, in output: inout Data) {
        if droppingFrom == nil { output.append(byte) }
    }

    private mutating func collect(_ byte: UInt8, _ isName: Bool) {
        guard isName, !nameTooLong else { return }
        if name.count == Self.longestName {
            nameTooLong = true
        } else {
            name.append(byte)
        }
    }

    /// A member name's text, its escapes (`\u0070assword`) decoded.
    private static func decoded(_ raw: [UInt8]) -> String {
        guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw, as: UTF8.self) }
        let quoted = Data([UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")])
        let value = try? JSONSerialization.jsonObject(with: quoted, options: .fragmentsAllowed)
        return value as? String ?? String(decoding: raw, as: UTF8.self)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The bytes of numbers, `true`, `false` and `null`.
    private static func isLiteral(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
}
