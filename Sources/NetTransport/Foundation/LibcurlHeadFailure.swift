import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The answers libcurl (through FoundationNetworking on Linux) refuses before a head arrives, which it reports with
/// codes that mislead (`unknown`, `unsupportedURL`) and a sentence of its own: told apart by that sentence, and said
/// as a malformed response (``NetCore/TransportError/Kind/badResponse``) with what the server sent.
enum LibcurlHeadFailure: Equatable {
    /// A header value with bytes beyond ASCII (obs-text), or a status line without a reason phrase: valid HTTP that
    /// FoundationNetworking's header callback refuses.
    case unreadableHead
    /// An answer that is not HTTP/1.x: garbage, or HTTP/0.9, which libcurl refuses.
    case notHTTP
    /// A header section beyond libcurl's limit (100 KiB), which it reports as running out of memory.
    case headTooLarge

    /// The failure `error` reports, if it is one of these.
    init?(_ error: URLError) {
        let text = error.userInfo[NSLocalizedDescriptionKey] as? String ?? error.localizedDescription
        switch error.code {
        case .unknown where text.contains("Failed writing header"): self = .unreadableHead
        case .unknown where text.contains("Out of memory"): self = .headTooLarge
        case .unsupportedURL where text.contains("HTTP/0.9"): self = .notHTTP
        default: return nil
        }
    }

    /// What the server sent, and what reads it.
    var detail: String {
        switch self {
        case .unreadableHead:
            "URLSession on Linux could not read the response head (libcurl: Failed writing header): "
                + "FoundationNetworking refuses header bytes beyond ASCII (obs-text, allowed by RFC 9110 §5.5) and a "
                + "status line without a reason phrase, and the server sent one of them; AsyncHTTPClientTransport reads "
                + "both"
        case .notHTTP:
            "the server's answer is not HTTP/1.x: garbage, or HTTP/0.9 (libcurl: Received HTTP/0.9 when not allowed)"
        case .headTooLarge:
            "the response head was larger than libcurl accepts (100 KiB), or memory ran out reading it (libcurl: "
                + "Out of memory)"
        }
    }
}
