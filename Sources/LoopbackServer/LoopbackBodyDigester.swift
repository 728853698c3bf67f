import Foundation
import NetKitDigest

/// Summarises a body fed to it in pieces of any size: what the server does with request bodies in
/// digest mode, and what a test does with the body it sends, to know the digest to expect without
/// holding the body either.
///
/// Memory stays bounded whatever the body's size: a partial hash block, at most one unfinished
/// multipart header section (64 KiB at most) or a few bytes that may start a delimiter, and one
/// short summary per part.
package struct LoopbackBodyDigester: Sendable {
    private var hasher = SHA256()
    private var byteCount = 0
    private var multipart: StreamingMultipartParser?
    /// Set when the content type rules multipart parsing out from the start.
    private let contentTypeError: LoopbackMultipartError?

    /// Starts a digest for a body sent with this `Content-Type` (which decides whether parts are parsed).
    package init(contentType: String?) {
        do {
            multipart = StreamingMultipartParser(boundary: try MultipartFormParser.boundary(from: contentType))
            contentTypeError = nil
        } catch {
            multipart = nil
            contentTypeError = error
        }
    }

    /// Adds the next piece of the body (a `Data`, a `[UInt8]`, a raw buffer…).
    package mutating func update(_ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { update(buffer: $0) }
    }

    /// Adds the next piece of the body, read in place.
    package mutating func update(buffer: UnsafeRawBufferPointer) {
        byteCount += buffer.count
        hasher.update(buffer: buffer)
        multipart?.update(buffer)
    }

    /// The digest of everything added so far, taken as the whole body.
    package func finalize() -> LoopbackBodyDigest {
        let verdict: Result<[LoopbackMultipartPartDigest], LoopbackMultipartError> =
            multipart?.finish() ?? .failure(contentTypeError ?? .notMultipartFormData(contentType: nil))
        let parts: [LoopbackMultipartPartDigest]?
        let error: LoopbackMultipartError?
        switch verdict {
        case let .success(found): (parts, error) = (found, nil)
        case let .failure(failure): (parts, error) = (nil, failure)
        }
        return LoopbackBodyDigest(
            byteCount: byteCount,
            sha256: SHA256.hex(hasher.finalize()),
            parts: parts,
            multipartError: error
        )
    }
}
