#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

/// A `multipart/form-data` body (RFC 7578): fields and files from memory, files on disk or streams.
///
/// ```swift
/// var form = MultipartFormData()
/// form.addField(name: "title", value: "Holiday")
/// form.addPart(name: "photo", data: jpegData, mimeType: "image/jpeg", filename: "beach.jpg")
///
/// var request = URLRequest(url: uploadURL)
/// request.httpMethod = "POST"
/// request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
/// request.httpBody = try form.encoded()   // or form.encodedData() for an optional
/// ```
///
/// Forms with parts from files or streams are sent with ``uploadSource()``, which reads each
/// part piece by piece as the transport asks for bytes, so a form of any size is never
/// assembled in memory nor copied to a temporary file:
///
/// ```swift
/// var form = MultipartFormData()
/// form.addField(name: "title", value: "Holiday")
/// try form.addPart(name: "video", fileURL: movieURL)   // video/quicktime, "movie.mov"
/// let body = try form.uploadSource()                 // body.length == form.contentLength
/// ```
///
/// Encoding is strict: header values containing CR, LF or NUL, and in-memory part data
/// containing the delimiter, are reported as ``MultipartEncodingError`` instead of producing
/// a body the server would split differently. File and stream data cannot be searched for the
/// delimiter without reading it first; see ``boundary`` for why the random default makes that
/// safe.
public struct MultipartFormData: Sendable, Equatable {
    /// Unique boundary string used to separate parts. Automatically generated as UUID.
    ///
    /// Always valid per RFC 2046: every initializer enforces it.
    ///
    /// In-memory data is checked for the delimiter `CRLF--boundary` before sending; file and
    /// stream data are not, because that would mean reading every file before the upload
    /// starts (or buffering a stream). With the random default (a UUID, 122 random bits) the
    /// chance that a file happens to contain the delimiter is negligible, which is the same
    /// reasoning browsers and other HTTP libraries rely on. With a fixed boundary, choosing
    /// one that cannot occur in the files is the caller's job: a file that contains it would
    /// be cut there by the receiver and the rest parsed as further parts.
    public let boundary: String

    /// The parts, in the order they are sent.
    public var parts: [Part]

    /// Creates an empty form with a random boundary (`UUID().uuidString`).
    ///
    /// A random boundary makes an accidental collision with part data practically
    /// impossible, which is why it is the default.
    public init() {
        self.boundary = UUID().uuidString
        self.parts = []
    }

    /// Creates an empty form with a fixed boundary, for reproducible bodies in tests.
    ///
    /// An invalid boundary is a programmer error and stops the program with a
    /// `precondition` failure: boundaries passed here are expected to be literals, and a
    /// bad literal should fail loudly at the first run rather than force every call site to
    /// handle an error that cannot happen. For a boundary that comes from outside the
    /// program, use ``init(validatingBoundary:)``.
    ///
    /// - Precondition: `boundary` has 1–70 characters from
    ///   `0-9 A-Z a-z ' ( ) + _ , - . / : = ?` and space, and does not end with a space
    ///   (RFC 2046 §5.1.1).
    public init(boundary: String) {
        do {
            try MultipartFraming.validate(boundary: boundary)
        } catch {
            preconditionFailure(error.description)
        }
        self.boundary = boundary
        self.parts = []
    }

    /// Creates an empty form with a boundary that is checked against RFC 2046 §5.1.1.
    ///
    /// - Throws: ``MultipartEncodingError/invalidBoundary(_:reason:)`` with the rule broken.
    public init(validatingBoundary boundary: String) throws(MultipartEncodingError) {
        try MultipartFraming.validate(boundary: boundary)
        self.boundary = boundary
        self.parts = []
    }

    /// Appends a part.
    ///
    /// Nothing is validated here, so adding in-memory parts never fails; problems surface
    /// once, in ``encoded()`` or ``uploadSource()``.
    ///
    /// - Parameters:
    ///   - name: The form field name.
    ///   - data: The content, sent verbatim.
    ///   - mimeType: The content type; may be empty (see ``Part/mimeType``).
    ///   - filename: The file name; `nil` for a plain field.
    public mutating func addPart(name: String, data: Data, mimeType: String, filename: String? = nil) {
        parts.append(Part(name: name, filename: filename, data: data, mimeType: mimeType))
    }

    /// Appends a plain text field, sent as UTF-8 without a `Content-Type` header.
    ///
    /// This matches what browsers send for `<input type="text">`; servers read such
    /// fields as text (RFC 7578 §4.4) and today universally as UTF-8.
    public mutating func addField(name: String, value: String) {
        addPart(name: name, data: Data(value.utf8), mimeType: "")
    }

    /// The value for the request's `Content-Type` header: `multipart/form-data; boundary=…`.
    ///
    /// The boundary is quoted only when it contains characters that are not allowed in an
    /// HTTP token, such as space, `:` or `=`; a UUID boundary is never quoted.
    public var contentType: String {
        framing.contentType
    }

    /// The exact number of bytes ``encoded()`` returns, computed without building the body.
    ///
    /// Costs O(number of parts + header sizes), independent of data sizes, so it can be
    /// used for `Content-Length` or progress reporting up front. It counts the bytes as if
    /// the form were valid; when ``encoded()`` throws there is no body and the value is
    /// meaningless.
    ///
    /// Counts file and stream parts too, at the length they declare; it is then the length
    /// of ``uploadSource()``, not of ``encoded()`` (which refuses such forms). Stops the
    /// program if the length exceeds `Int.max`, which only a 32-bit platform can reach; use
    /// ``contentLength`` for bodies beyond 2 GiB there.
    public var encodedLength: Int {
        Int(contentLength)
    }

    /// The exact size in bytes of the body, as `Int64` so files beyond 2 GiB fit on every
    /// platform: the `Content-Length` of ``uploadSource()`` (and of ``encoded()`` for
    /// in-memory forms).
    ///
    /// Costs O(number of parts + header sizes): files were measured when they were added.
    public var contentLength: Int64 {
        let framing = self.framing
        var length = Int64(framing.closeLength)
        for part in parts {
            length += Int64(framing.headLength(name: part.name, filename: part.filename, mimeType: part.mimeType))
            length += part.content.length
            length += Int64(MultipartFraming.partEndLength)
        }
        return length
    }

    /// Encodes the form into an HTTP body.
    ///
    /// Names and filenames are sent as `quoted-string`s in raw UTF-8 with quotes and
    /// backslashes escaped by a backslash (RFC 2183). A form without parts encodes as the
    /// close delimiter alone.
    ///
    /// All parts are checked before anything is allocated, so a failure costs no copy of
    /// the data; on success the body is built in a single allocation of
    /// ``encodedLength`` bytes.
    ///
    /// Only for forms whose parts are all in memory: a file or stream part is not read
    /// behind the caller's back (it may be gigabytes, or a one-shot stream), so such a form
    /// throws ``MultipartEncodingError/partNotInMemory(name:partIndex:)``; send it with
    /// ``uploadSource()``.
    ///
    /// - Throws: ``MultipartEncodingError/lineBreakInHeader(field:partIndex:)`` if a name,
    ///   filename or MIME type contains CR, LF or NUL;
    ///   ``MultipartEncodingError/boundaryInPart(name:partIndex:)`` if a part's data contains
    ///   `CRLF--boundary`; ``MultipartEncodingError/partNotInMemory(name:partIndex:)`` for a
    ///   file or stream part. The first offending part, in order, is reported.
    public func encoded() throws(MultipartEncodingError) -> Data {
        let framing = self.framing
        let scanner = framing.makeDelimiterScanner()
        for (index, part) in parts.enumerated() {
            try validate(part, at: index, startingWith: scanner)
            guard part.isInMemory else { throw .partNotInMemory(name: part.name, partIndex: index) }
        }

        var body = Data()
        body.reserveCapacity(encodedLength)
        for part in parts {
            framing.writeHead(name: part.name, filename: part.filename, mimeType: part.mimeType, into: &body)
            body.append(part.data)
            framing.writePartEnd(into: &body)
        }
        framing.writeClose(into: &body)
        return body
    }

    /// Encodes the form into an HTTP body, or returns `nil` if it cannot be encoded.
    ///
    /// Returns `nil` exactly when ``encoded()`` throws, which includes every form with a
    /// file or stream part (send those with ``uploadSource()``). Use ``encoded()`` to learn why.
    public func encodedData() -> Data? {
        try? encoded()
    }

    /// Checks what can be checked without I/O: header values, and in-memory data for the delimiter.
    ///
    /// `fresh` is a scanner that has seen nothing yet; it is copied for the part, so a form of many
    /// parts builds the delimiter pattern once rather than once per part.
    func validate(_ part: Part, at index: Int, startingWith fresh: MultipartDelimiterScanner)
        throws(MultipartEncodingError)
    {
        try MultipartFraming.validateHead(
            name: part.name, filename: part.filename, mimeType: part.mimeType, partIndex: index
        )
        if case let .data(data) = part.content {
            var scanner = fresh
            if scanner.scan(data) {
                throw .boundaryInPart(name: part.name, partIndex: index)
            }
        }
    }

    /// Built on demand rather than stored so that `boundary` stays the single source of truth
    /// and the struct keeps the reference's stored properties.
    var framing: MultipartFraming {
        MultipartFraming(validatedBoundary: boundary)
    }
}
