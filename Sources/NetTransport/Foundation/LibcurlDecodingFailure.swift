import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A body libcurl (through FoundationNetworking on Linux) failed to decode, which it reports as `URLError.unknown`
/// with a sentence of its own: NetKit would otherwise say a lost connection, which retries would repeat. Told apart
/// by that sentence (libcurl 7.88), and said as a malformed response that is not transient.
enum LibcurlDecodingFailure: Equatable {
    /// More than 5 codings listed (libcurl refuses them before the head).
    case tooManyCodings
    /// A coding libcurl does not know.
    case unknownCoding
    /// Data that does not decode in its coding.
    case undecodableData

    /// The failure `error` reports, if it is one of these. `isCoded`: whether the response's head named a content
    /// coding, without which libcurl's generic sentences ("… Content or Transfer-Encoding", "Failed writing received
    /// data …") may be about something else.
    init?(_ error: URLError, isCoded: Bool) {
        guard error.code == .unknown else { return nil }
        let text = error.userInfo[NSLocalizedDescriptionKey] as? String ?? error.localizedDescription
        if text.contains("content encodings") && text.contains("Reject response") {
            self = .tooManyCodings
        } else if text.contains("Unrecognized content encoding type") {
            self = .unknownCoding
        } else if text.contains("content unencoding")
            || (isCoded && (text.contains("Content or Transfer-Encoding") || text.contains("Failed writing received")))
        {
            // The last: a decoder below another refusing bytes after its end (libcurl's CURLE_WRITE_ERROR).
            self = .undecodableData
        } else {
            return nil
        }
    }

    /// What was refused and why.
    var detail: String {
        switch self {
        case .tooManyCodings:
            "the response lists more content codings than libcurl accepts (5), more than any server applies "
                + "(libcurl: Reject response due to more than 5 content encodings)"
        case .unknownCoding:
            "the body is in a content coding libcurl does not decode (libcurl: Unrecognized content encoding type)"
        case .undecodableData:
            "the compressed body could not be decoded (libcurl: Unrecognized or bad HTTP Content or "
                + "Transfer-Encoding, Error while processing content unencoding, or Failed writing received data)"
        }
    }
}
