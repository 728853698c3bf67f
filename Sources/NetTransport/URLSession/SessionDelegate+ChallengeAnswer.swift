import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SessionDelegate {
    /// The answer to an HTTP authentication challenge that FoundationNetworking can carry out: `.performDefaultHandling`
    /// (which leaves the task hanging forever on Linux, measured with libcurl 7.88.1, Swift 6.3.1) becomes what the
    /// default should do: `stored`, the configuration's credential, when there is one (the caller passes it only
    /// before any failure, so it is offered once), otherwise giving up, which delivers the server's 401. Any other
    /// answer passes as it is.
    static func resolvedAnswer(
        _ disposition: URLSession.AuthChallengeDisposition, _ credential: URLCredential?, stored: URLCredential?
    ) -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        guard disposition == .performDefaultHandling else { return (disposition, credential) }
        guard let stored else { return (.cancelAuthenticationChallenge, nil) }
        return (.useCredential, stored)
    }
}
