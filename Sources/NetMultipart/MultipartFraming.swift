#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The RFC 7578 / RFC 2046 framing for one boundary, independent of where part data lives.
///
/// It only ever sees a part's header values and data *length*, never the data itself, so
/// the in-memory encoder and a future encoder streaming parts from files share the exact
/// same bytes and the exact same length arithmetic.
///
/// Layout of a body, all line breaks CRLF:
/// ```
/// --boundary                                     ┐
/// Content-Disposition: form-data; name="…"[; filename="…"]
/// [Content-Type: …]                              │ head (per part)
/// (empty line)                                   ┘
/// <data>
/// (CRLF)                                         ← part end; starts the next delimiter
/// --boundary--                                   ← close delimiter
/// ```
/// The CRLF after the data belongs to the following delimiter (RFC 2046 §5.1.1), which is
/// why data containing `CRLF--boundary` is rejected.
struct MultipartFraming: Sendable, Equatable {
    /// Used when a file part has no MIME type: RFC 7578 §4.4 names it as the default for files.
    static let defaultFileMIMEType = "application/octet-stream"

    static let maximumBoundaryLength = 70

    /// Bytes written after each part's data.
    static let partEndLength = 2

    let boundary: String

    /// Trusts that `boundary` has passed ``validate(boundary:)``; the scanner and the
    /// quoting in ``contentType`` rely on it.
    init(validatedBoundary boundary: String) {
        self.boundary = boundary
    }

    // MARK: Boundary

    /// Checks RFC 2046 §5.1.1: 1–70 `bchars`, not ending in a space.
    static func validate(boundary: String) throws(MultipartEncodingError) {
        if boundary.isEmpty {
            throw .invalidBoundary(boundary, reason: .empty)
        }
        // Scalars, not Characters: "\r\n" is a single Character and would slip past a
        // per-Character comparison.
        if let bad = boundary.unicodeScalars.first(where: { !isBoundaryCharacter($0) }) {
            throw .invalidBoundary(boundary, reason: .invalidCharacter(bad))
        }
        // All accepted scalars are ASCII, so the UTF-8 count is the character count.
        let length = boundary.utf8.count
        if length > maximumBoundaryLength {
            throw .invalidBoundary(boundary, reason: .tooLong(length: length))
        }
        if boundary.utf8.last == ASCII.space {
            throw .invalidBoundary(boundary, reason: .endsWithSpace)
        }
    }

    /// RFC 2046 `bchars`.
    static func isBoundaryCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "0"..."9", "A"..."Z", "a"..."z",
            "'", "(", ")", "+", "_", ",", "-", ".", "/", ":", "=", "?", " ":
            true
        default:
            false
        }
    }

    /// RFC 9110 `tchar`: a parameter value made only of these may go unquoted.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "a")...UInt8(ascii: "z"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// `multipart/form-data; boundary=…`, quoted only when needed.
    ///
    /// Boundaries may contain `( ) , / : = ?` and space, which are not token characters and
    /// must be quoted (RFC 2046 §5.1.1 warns about exactly this). No backslash escaping is
    /// needed inside the quotes because `bchars` has neither `"` nor `\`.
    var contentType: String {
        if boundary.utf8.allSatisfy(Self.isTokenCharacter) {
            "multipart/form-data; boundary=\(boundary)"
        } else {
            "multipart/form-data; boundary=\"\(boundary)\""
        }
    }

    // MARK: Part headers

    /// Rejects header values that would break out of their header line.
    static func validateHead(
        name: String,
        filename: String?,
        mimeType: String,
        partIndex: Int
    ) throws(MultipartEncodingError) {
        if containsLineBreak(name) {
            throw .lineBreakInHeader(field: .name, partIndex: partIndex)
        }
        if let filename, containsLineBreak(filename) {
            throw .lineBreakInHeader(field: .filename, partIndex: partIndex)
        }
        if containsLineBreak(mimeType) {
            throw .lineBreakInHeader(field: .mimeType, partIndex: partIndex)
        }
    }

    /// Works on UTF-8 bytes, not Characters, because `"\r\n"` is one Character in Swift
    /// and would not compare equal to `"\r"` or `"\n"`. CR, LF and NUL never occur inside a
    /// multi-byte UTF-8 sequence, so a byte test is exact.
    static func containsLineBreak(_ value: String) -> Bool {
        value.utf8.contains { $0 == ASCII.carriageReturn || $0 == ASCII.lineFeed || $0 == ASCII.nul }
    }

    /// The MIME type that will be sent, or `nil` when the `Content-Type` line is omitted.
    ///
    /// A plain field with no type omits the header, as browsers do; receivers then assume
    /// `text/plain` (RFC 7578 §4.4). A file always gets a type so servers do not guess.
    static func effectiveMIMEType(_ mimeType: String, filename: String?) -> String? {
        if !mimeType.isEmpty { return mimeType }
        return filename == nil ? nil : defaultFileMIMEType
    }

    /// Writes the delimiter and headers that precede a part's data, ending with the
    /// blank line. Header values must have passed ``validateHead(name:filename:mimeType:partIndex:)``.
    func writeHead(
        name: String,
        filename: String?,
        mimeType: String,
        into sink: inout some MultipartByteSink
    ) {
        sink.write("--".utf8)
        sink.write(boundary.utf8)
        sink.write("\r\nContent-Disposition: form-data; name=\"".utf8)
        sink.writeQuotedStringContent(name)
        sink.write(ASCII.quote)
        if let filename {
            sink.write("; filename=\"".utf8)
            sink.writeQuotedStringContent(filename)
            sink.write(ASCII.quote)
        }
        sink.write("\r\n".utf8)
        if let type = Self.effectiveMIMEType(mimeType, filename: filename) {
            sink.write("Content-Type: ".utf8)
            sink.write(type.utf8)
            sink.write("\r\n".utf8)
        }
        sink.write("\r\n".utf8)
    }

    /// Size of what ``writeHead(name:filename:mimeType:into:)`` writes, without allocating.
    func headLength(name: String, filename: String?, mimeType: String) -> Int {
        var counter = MultipartByteCounter()
        writeHead(name: name, filename: filename, mimeType: mimeType, into: &counter)
        return counter.count
    }

    /// Writes the CRLF that follows a part's data.
    func writePartEnd(into sink: inout some MultipartByteSink) {
        sink.write("\r\n".utf8)
    }

    // MARK: Close delimiter

    /// Writes `--boundary--` and a trailing CRLF; the CRLF is optional per RFC 2046 but
    /// some servers wait for it before considering the body complete.
    func writeClose(into sink: inout some MultipartByteSink) {
        sink.write("--".utf8)
        sink.write(boundary.utf8)
        sink.write("--\r\n".utf8)
    }

    /// Size of what ``writeClose(into:)`` writes.
    var closeLength: Int {
        var counter = MultipartByteCounter()
        writeClose(into: &counter)
        return counter.count
    }

    // MARK: Data

    /// A scanner for the delimiter inside one part's data.
    func makeDelimiterScanner() -> MultipartDelimiterScanner {
        MultipartDelimiterScanner(boundary: boundary)
    }
}
