import Foundation

/// What the server kept of a request body in digest mode (``LoopbackRequestBodyMode/digested``):
/// its size and SHA-256, and for `multipart/form-data` a summary of each part, instead of the bytes.
///
/// Codable, so a handler can send it back (``LoopbackResponse/uploadReport(for:status:)``) and a
/// client-side test can decode it and compare it with ``LoopbackBodyDigester``'s digest of what it sent.
package struct LoopbackBodyDigest: Sendable, Equatable, Codable {
    /// The body's length in bytes (after de-chunking).
    package let byteCount: Int
    /// The body's SHA-256, lowercase hexadecimal.
    package let sha256: String
    /// The parts, in order, when the body is well-formed `multipart/form-data`; else `nil`.
    package let parts: [LoopbackMultipartPartDigest]?
    /// Why there are no ``parts``: not `multipart/form-data`, or the first defect the strict parser
    /// found (the same one ``LoopbackRequest/multipartParts()`` reports for the buffered body).
    package let multipartError: LoopbackMultipartError?

    /// Creates a digest from its fields (mainly useful to build expected values in tests).
    package init(
        byteCount: Int,
        sha256: String,
        parts: [LoopbackMultipartPartDigest]?,
        multipartError: LoopbackMultipartError?
    ) {
        self.byteCount = byteCount
        self.sha256 = sha256
        self.parts = parts
        self.multipartError = multipartError
    }

    /// Digests a body held in memory, exactly as the server digests one arriving in pieces.
    package init(body: Data, contentType: String?) {
        var digester = LoopbackBodyDigester(contentType: contentType)
        digester.update(body)
        self = digester.finalize()
    }

    /// The multipart parts, with the strict parser's verdict as for ``LoopbackRequest/multipartParts()``.
    /// - Throws: ``multipartError`` when there are no parts.
    package func multipartParts() throws(LoopbackMultipartError) -> [LoopbackMultipartPartDigest] {
        if let parts { return parts }
        throw multipartError ?? .notMultipartFormData(contentType: nil)
    }
}
