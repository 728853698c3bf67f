import Foundation

/// One part of a `multipart/form-data` body, as decoded by ``LoopbackRequest/multipartParts()``.
package struct LoopbackMultipartPart: Sendable {
    /// The `name` parameter of the part's `Content-Disposition: form-data` header.
    package let name: String
    /// The `filename` parameter, unescaped, if present.
    package let filename: String?
    /// The part's `Content-Type` header value, if present.
    package let contentType: String?
    /// Every header field of the part, in order, as received.
    package let headers: [(name: String, value: String)]
    /// The part's content, byte for byte.
    package let data: Data

    /// Creates a part (mainly useful to build expected values in tests).
    package init(
        name: String,
        filename: String?,
        contentType: String?,
        headers: [(name: String, value: String)],
        data: Data
    ) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.headers = headers
        self.data = data
    }

    /// The first header field with this name, compared case-insensitively.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
