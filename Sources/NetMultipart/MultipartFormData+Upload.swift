import Foundation  // InputStream: not in FoundationEssentials
import NetCore

extension MultipartFormData {
    /// Appends a part whose bytes are read from the file at `fileURL` when the form is sent.
    ///
    /// The file is checked now, so a missing or unreadable file fails here rather than
    /// halfway through an upload; its size is recorded and becomes part of ``contentLength``.
    /// If the file has another size when it is read, the upload fails with
    /// `UploadSourceError.fileSizeChanged(_:expected:actual:)` rather than sending a body
    /// that disagrees with its length.
    ///
    /// - Parameters:
    ///   - name: The form field name.
    ///   - fileURL: A `file:` URL of a regular file.
    ///   - mimeType: The content type; by default derived from the file's extension
    ///     (`application/octet-stream` when unknown), see ``mimeType(forPathExtension:)``.
    ///   - filename: The file name sent to the server; by default the file's last path component.
    /// - Throws: `UploadSourceError.fileNotFound(_:)`, `UploadSourceError.notARegularFile(_:)`
    ///   or `UploadSourceError.fileUnreadable(_:errno:)`.
    public mutating func addPart(
        name: String,
        fileURL: URL,
        mimeType: String? = nil,
        filename: String? = nil
    ) throws(UploadSourceError) {
        let file = try UploadFile(url: fileURL)
        parts.append(
            Part(
                name: name,
                filename: filename ?? fileURL.lastPathComponent,
                content: .file(file),
                mimeType: mimeType ?? Self.mimeType(forPathExtension: fileURL.pathExtension)
            ))
    }

    /// Appends a part read once from `stream`, which must yield exactly `length` bytes.
    ///
    /// The stream is read when the form is sent, piece by piece. A form holding a stream
    /// part can be sent once: `UploadSource.isReplayable` is `false`, so it is not retried,
    /// and a second `UploadSource.makeReader()` fails with
    /// `UploadSourceError.streamAlreadyConsumed`. A stream that ends early or runs long
    /// fails the upload with `UploadSourceError.streamLengthMismatch(expected:actual:)`.
    ///
    /// - Parameters:
    ///   - name: The form field name.
    ///   - stream: An unopened stream; the form takes it over.
    ///   - length: The exact number of bytes the stream yields (needed for `Content-Length`).
    ///   - mimeType: The content type; may be empty (see ``Part/mimeType``).
    ///   - filename: The file name; `nil` for a plain field.
    /// - Precondition: `length` is not negative.
    public mutating func addPart(
        name: String,
        stream: sending InputStream,
        length: Int64,
        mimeType: String,
        filename: String? = nil
    ) {
        precondition(length >= 0, "A stream part's length cannot be negative")
        parts.append(
            Part(
                name: name,
                filename: filename,
                content: .stream(SingleUseInputStream(stream), length: length),
                mimeType: mimeType
            ))
    }

    /// The form as an `UploadSource`: the framing in memory around each part's data,
    /// which stays where it is (memory, file or stream) until a transport reads it.
    ///
    /// Validated up front exactly like ``encoded()``: header values with CR, LF or NUL and
    /// in-memory data containing the delimiter are refused before a byte is sent (file and
    /// stream data are not scanned; see ``boundary``). Its `UploadSource.length` equals
    /// ``contentLength``, and for in-memory forms its bytes equal ``encoded()``.
    ///
    /// - Throws: ``MultipartEncodingError/lineBreakInHeader(field:partIndex:)`` or
    ///   ``MultipartEncodingError/boundaryInPart(name:partIndex:)``, for the first
    ///   offending part.
    public func uploadSource() throws(MultipartEncodingError) -> UploadSource {
        let framing = self.framing
        let scanner = framing.makeDelimiterScanner()
        for (index, part) in parts.enumerated() {
            try validate(part, at: index, startingWith: scanner)
        }
        var source = UploadSource()
        var pending = Data()
        for part in parts {
            framing.writeHead(name: part.name, filename: part.filename, mimeType: part.mimeType, into: &pending)
            if case let .data(data) = part.content, data.count <= Self.inlineDataLimit {
                pending.append(data)
            } else {
                // Large data stays in its own buffer (no copy); files and streams are read later.
                source.append(.data(pending))
                pending = Data()
                source.append(part.content.segment)
            }
            framing.writePartEnd(into: &pending)
        }
        framing.writeClose(into: &pending)
        source.append(.data(pending))
        return source
    }

    /// The MIME type NetKit assumes for a file extension (case-insensitive, without the
    /// dot), or `application/octet-stream` when the extension is unknown.
    ///
    /// A fixed table, the same on every platform, covering common text, document, archive,
    /// image, audio, video and font types.
    public static func mimeType(forPathExtension pathExtension: String) -> String {
        MIMETypeTable.mimeType(forPathExtension: pathExtension)
    }

    /// In-memory part data up to this size is copied next to its framing, so a form of
    /// small fields becomes one segment; larger data is referenced, never copied.
    static let inlineDataLimit = 16 * 1024
}
