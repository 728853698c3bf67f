import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The headers a request with a streamed body needs so the body goes out with
/// `Content-Length` when its size is known, and chunked only when it is not.
///
/// On Linux, FoundationNetworking gives libcurl no size for an `httpBodyStream`, so libcurl
/// sends it chunked, and a `Content-Length` header beside it makes libcurl send *both* headers
/// (servers answer 400: RFC 9112 §6.3 forbids the pair). The fix measured in Docs/Uploads.md:
/// a `Transfer-Encoding` header whose value is only a space. FoundationNetworking passes it to
/// libcurl as `Transfer-Encoding:  `; libcurl treats a custom header with an empty value as
/// "do not send this header", and because a `Transfer-Encoding` header was set that does not
/// say `chunked`, it does not chunk the body either. The wire then carries exactly
/// `Content-Length: N` and N bytes, and libcurl reads the stream until it returns 0 (which
/// `UploadReader` guarantees happens after exactly N bytes, or the read fails).
///
/// On Apple platforms the system honours a `Content-Length` header on a stream body, and the
/// placeholder must not be sent, so only `Content-Length` is set there.
enum StreamedBodyFraming {
    /// The value that makes libcurl drop `Transfer-Encoding` and send the body as it is.
    static let suppressedTransferEncoding = " "

    /// The header changes for a streamed body of `length` bytes (`nil` when unknown), as
    /// (name, value) pairs where `nil` removes the header. A pure decision, tested without I/O.
    static func headers(forLength length: Int64?, isLibcurl: Bool = Self.isLibcurl) -> [(name: String, value: String?)]
    {
        guard let length else {
            // Unknown size: chunked is the only honest framing; a stale length must not survive.
            return [("Content-Length", nil), ("Transfer-Encoding", nil)]
        }
        if isLibcurl {
            return [("Content-Length", String(length)), ("Transfer-Encoding", suppressedTransferEncoding)]
        }
        return [("Content-Length", String(length)), ("Transfer-Encoding", nil)]
    }

    /// Applies ``headers(forLength:isLibcurl:)`` to `request`.
    static func apply(length: Int64?, to request: inout URLRequest) {
        for (name, value) in headers(forLength: length) {
            request.setValue(value, forHTTPHeaderField: name)
        }
    }

    /// Whether URLSession is FoundationNetworking's libcurl-based one.
    static var isLibcurl: Bool {
        #if canImport(FoundationNetworking)
        true
        #else
        false
        #endif
    }
}
