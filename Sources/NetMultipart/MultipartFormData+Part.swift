#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

extension MultipartFormData {
    /// One field or file of a `multipart/form-data` body (RFC 7578 §4.2).
    ///
    /// A part with a ``filename`` is a file upload; one without is a plain form field.
    /// Header values are stored as given and only checked when the form is encoded, so
    /// building a form from memory never fails. The bytes are in memory, in a file or in a
    /// one-shot stream: see ``content``.
    public struct Part: Sendable, Equatable {
        /// The form field name, sent as `Content-Disposition: form-data; name="…"`.
        ///
        /// Sent as raw UTF-8 with `"` and `\` backslash-escaped. Must not contain CR, LF or NUL.
        public let name: String

        /// The file name, sent as `; filename="…"` when not `nil`.
        ///
        /// Encoded like ``name``. An empty string still marks the part as a file, which is
        /// what browsers send for an empty file input.
        public let filename: String?

        /// Where the part's bytes come from: memory, a file, or a one-shot stream.
        public let content: Content

        /// The part's bytes when they are in memory; empty for file and stream parts.
        ///
        /// File and stream parts are never loaded into memory (that is their point), so
        /// there is nothing to return without reading a file of any size or consuming a
        /// stream; check ``content`` (or ``isInMemory``) before relying on this. In-memory
        /// data must not contain `CRLF--boundary`.
        public var data: Data {
            if case let .data(data) = content { data } else { Data() }
        }

        /// Whether the bytes are in memory, so ``data`` is the whole content and
        /// ``MultipartFormData/encoded()`` can include this part.
        public var isInMemory: Bool {
            if case .data = content { true } else { false }
        }

        /// The `Content-Type` of the part.
        ///
        /// When empty, file parts are sent as `application/octet-stream` and plain fields
        /// omit the header (receivers then assume `text/plain`, RFC 7578 §4.4).
        public let mimeType: String

        /// Creates a part.
        ///
        /// - Parameters:
        ///   - name: The form field name.
        ///   - filename: The file name; `nil` for a plain field.
        ///   - data: The content, sent verbatim.
        ///   - mimeType: The content type; may be empty (see ``mimeType``).
        public init(name: String, filename: String? = nil, data: Data, mimeType: String) {
            self.init(name: name, filename: filename, content: .data(data), mimeType: mimeType)
        }

        /// Creates a part whose bytes come from memory, a file or a stream.
        ///
        /// - Parameters:
        ///   - name: The form field name.
        ///   - filename: The file name; `nil` for a plain field.
        ///   - content: Where the bytes come from.
        ///   - mimeType: The content type; may be empty (see ``mimeType``).
        public init(name: String, filename: String? = nil, content: Content, mimeType: String) {
            self.name = name
            self.filename = filename
            self.content = content
            self.mimeType = mimeType
        }
    }
}
