import Foundation

extension MultipartFormData {
    /// One field or file of a `multipart/form-data` body (RFC 7578 §4.2).
    ///
    /// A part with a ``filename`` is a file upload; one without is a plain form field.
    /// Header values are stored as given and only checked when the form is encoded, so
    /// building a form never fails.
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

        /// The part's content, sent verbatim. It must not contain `CRLF--boundary`.
        public let data: Data

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
            self.name = name
            self.filename = filename
            self.data = data
            self.mimeType = mimeType
        }
    }
}
