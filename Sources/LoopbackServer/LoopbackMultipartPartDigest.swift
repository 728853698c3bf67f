import NetKitDigest

/// One part of a `multipart/form-data` body as summarised in digest mode: what its headers said,
/// and its content's size and SHA-256 instead of the content itself.
package struct LoopbackMultipartPartDigest: Sendable, Equatable, Codable {
    /// The `name` parameter of the part's `Content-Disposition: form-data` header.
    package let name: String
    /// The `filename` parameter, unescaped, if present.
    package let filename: String?
    /// The part's `Content-Type` header value, if present.
    package let contentType: String?
    /// The content's length in bytes.
    package let byteCount: Int
    /// The content's SHA-256, lowercase hexadecimal.
    package let sha256: String

    /// Creates a part summary (mainly useful to build expected values in tests).
    package init(name: String, filename: String?, contentType: String?, byteCount: Int, sha256: String) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.byteCount = byteCount
        self.sha256 = sha256
    }

    /// The summary of a part decoded whole by ``LoopbackRequest/multipartParts()``, to compare the two modes.
    package init(_ part: LoopbackMultipartPart) {
        self.init(
            name: part.name,
            filename: part.filename,
            contentType: part.contentType,
            byteCount: part.data.count,
            sha256: SHA256.hex(SHA256.hash(part.data))
        )
    }
}
