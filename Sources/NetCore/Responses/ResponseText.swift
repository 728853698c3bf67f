#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a `String` response's body becomes text: the charset its `Content-Type` names, UTF-8 when it names none.
///
/// Charset labels are read as browsers read them (the WHATWG Encoding Standard): `iso-8859-1`, `latin1` and
/// `us-ascii` are decoded as `windows-1252`, their superset that every byte is valid in (FoundationEssentials has no
/// `windows-1252` on Linux, so NetKit decodes it itself); `utf-16` without a byte order mark is little-endian. A byte
/// order mark at the start of UTF-8 or UTF-16 text is dropped.
package enum ResponseText {
    /// The charsets NetKit decodes.
    package enum Charset: Sendable, Equatable {
        case utf8
        case windows1252
        case utf16
        case utf16BigEndian
        case utf16LittleEndian
        case utf32
        case utf32BigEndian
        case utf32LittleEndian

        /// The charset a label names (case-insensitive), `nil` for one NetKit cannot decode.
        package init?(label: String) {
            switch HeaderValidation.lowercased(label) {
            case "utf-8", "utf8", "unicode-1-1-utf-8": self = .utf8
            case "windows-1252", "cp1252", "x-cp1252", "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "l1",
                "ibm819", "cp819", "us-ascii", "ascii", "ansi_x3.4-1968":
                self = .windows1252
            case "utf-16", "utf16": self = .utf16
            case "utf-16be", "unicodefffe": self = .utf16BigEndian
            case "utf-16le", "unicodefeff": self = .utf16LittleEndian
            case "utf-32", "utf32": self = .utf32
            case "utf-32be": self = .utf32BigEndian
            case "utf-32le": self = .utf32LittleEndian
            default: return nil
            }
        }
    }

    /// The body as text.
    /// - Throws: ``ResponseDecodingError/unsupportedCharset(_:)`` for a charset NetKit cannot decode,
    ///   ``ResponseDecodingError/undecodableText(charset:)`` for bytes that are not text in the charset.
    package static func decode(_ data: Data, contentType: String?) throws(ResponseDecodingError) -> String {
        // No bytes are text in every charset, one NetKit does not know included.
        if data.isEmpty { return "" }
        guard let label = contentType.flatMap(charset(in:)) else { return try decode(data, as: .utf8, label: "utf-8") }
        guard let charset = Charset(label: label) else { throw .unsupportedCharset(label) }
        return try decode(data, as: charset, label: label)
    }

    /// The value of the `charset` parameter of a `Content-Type` value, unquoted; `nil` when there is none.
    package static func charset(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            guard let equals = parameter.firstIndex(of: "=") else { continue }
            guard HeaderValidation.namesMatch(String(trimmed(parameter[..<equals])), "charset") else { continue }
            var value = trimmed(parameter[parameter.index(after: equals)...])
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            return value.isEmpty ? nil : String(value)
        }
        return nil
    }

    /// `text` without the spaces and tabs around it (optional whitespace in a header value, RFC 9110 §5.6.3).
    private static func trimmed(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return text[first...last]
    }

    private static func decode(_ data: Data, as charset: Charset, label: String) throws(ResponseDecodingError) -> String
    {
        if data.isEmpty { return "" }
        let text: String? =
            switch charset {
            case .utf8: String(data: data, encoding: .utf8)
            case .windows1252: windows1252(data)
            case .utf16: utf16(data)
            case .utf16BigEndian: String(data: data, encoding: .utf16BigEndian)
            case .utf16LittleEndian: String(data: data, encoding: .utf16LittleEndian)
            case .utf32: String(data: data, encoding: .utf32)
            case .utf32BigEndian: String(data: data, encoding: .utf32BigEndian)
            case .utf32LittleEndian: String(data: data, encoding: .utf32LittleEndian)
            }
        guard let text else { throw .undecodableText(charset: label) }
        return text
    }

    /// UTF-16 as browsers take it: the byte order mark decides, little-endian without one.
    private static func utf16(_ data: Data) -> String? {
        if data.starts(with: [0xFE, 0xFF]) { return String(data: data.dropFirst(2), encoding: .utf16BigEndian) }
        if data.starts(with: [0xFF, 0xFE]) { return String(data: data.dropFirst(2), encoding: .utf16LittleEndian) }
        return String(data: data, encoding: .utf16LittleEndian)
    }

    /// Windows-1252: Latin-1 but for 0x80–0x9F, which hold typographic characters (its five unassigned bytes stand
    /// for the C1 controls of the same value, as in the WHATWG table). Every byte sequence is valid.
    private static func windows1252(_ data: Data) -> String {
        if !data.contains(where: { $0 >= 0x80 }) { return String(decoding: data, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        for byte in data {
            let value = (0x80...0x9F).contains(byte) ? windows1252High[Int(byte) - 0x80] : UInt32(byte)
            scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
        }
        return String(scalars)
    }

    /// The code points of bytes 0x80–0x9F in windows-1252.
    private static let windows1252High: [UInt32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D,
        0x017D, 0x008F,
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D,
        0x017E, 0x0178,
    ]
}
