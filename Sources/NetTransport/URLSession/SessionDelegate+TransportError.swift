import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

extension SessionDelegate {
    /// A URLSession error in NetKit's words, without the failing URL. libcurl reports a connection that closed
    /// mid-body as code -1 ("transfer closed with N bytes remaining"), Apple's stack as `networkConnectionLost`:
    /// NetKit says ``TransportError/Kind/connectionLost`` on both. A body libcurl could not decode (`isCoded`: its
    /// head named a content coding) is a malformed response that is not transient. Errors NetKit made itself pass
    /// as they are.
    static func transportError(_ error: any Error, afterHead: Bool, host: String?, isCoded: Bool = false) -> any Error {
        guard let urlError = error as? URLError else { return error }
        var translated = urlError.transportError
        translated.host = host ?? translated.host
        if let failure = LibcurlDecodingFailure(urlError, isCoded: isCoded) {
            translated.kind = .badResponse
            translated.detail = failure.detail
            translated.isPermanent = true
            return translated
        }
        if !afterHead, let failure = LibcurlHeadFailure(urlError) {
            translated.kind = .badResponse
            translated.detail = failure.detail
        }
        if afterHead, urlError.code == .unknown {
            translated.kind = .connectionLost
            translated.detail = "the connection closed before the body was complete"
        }
        return translated
    }
}
