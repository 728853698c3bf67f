import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore
import NetTransport
import Testing

/// URLSession's failures in NetKit's words: the kind the retry rules read, and text without the URL.
@Suite("URLError as TransportError")
struct URLErrorTranslationTests {
    let secretURL = URL(string: "https://api.example.com/x?token=s3cr3t")!

    @Test(
        "each URLSession failure maps to the kind that fits, transient or not",
        arguments: [
            (URLError.Code.cannotConnectToHost, TransportError.Kind.cannotConnect, true),
            (.networkConnectionLost, .connectionLost, true),
            (.timedOut, .timedOut, true),
            (.cannotFindHost, .cannotFindHost, true),
            (.dnsLookupFailed, .cannotFindHost, true),
            (.notConnectedToInternet, .notConnected, true),
            (.badServerResponse, .badResponse, true),
            (.serverCertificateUntrusted, .tlsFailure, false),
            (.secureConnectionFailed, .tlsFailure, false),
            (.httpTooManyRedirects, .tooManyRedirects, false),
            (.unsupportedURL, .unsupportedURL, false),
        ])
    func kinds(code: URLError.Code, kind: TransportError.Kind, transient: Bool) {
        let translated = URLError(code, userInfo: [NSURLErrorFailingURLErrorKey: secretURL]).transportError
        #expect(translated.kind == kind)
        #expect(translated.isTransient == transient)
        #expect(RetryPolicy.isTransient(URLError(code)) == transient, "a URLError is judged by the same rules")
        #expect(translated.host == "api.example.com")
    }

    @Test("the text of a translated URLError and its log line hold no path or query value")
    func noSecrets() {
        let error = URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: secretURL])
        #expect(!error.transportError.description.contains("s3cr3t"))
        #expect(!error.transportError.description.contains("/x"))
        #expect(
            LogRedaction.describe(error)
                == "URLError: Timed out: api.example.com (URLError -1001 timedOut). The server at api.example.com did "
                + "not answer in time: check that it is up, or give the request a longer timeout or idleTimeout")
    }

    @Test("a TransportError shown as URLError keeps URLSession's code, or the code its kind means, and no URL")
    func presentedAsURLError() {
        let fromSession = URLError(
            URLError(.networkConnectionLost, userInfo: [NSURLErrorFailingURLErrorKey: secretURL]).transportError)
        #expect(fromSession.code == .networkConnectionLost)
        #expect(fromSession.failingURL == nil)
        #expect(URLError(TransportError(.timedOut, host: "h.test")).code == .timedOut)
        #expect(URLError(TransportError(.cannotConnect)).code == .cannotConnectToHost)
        #expect(!"\(fromSession)".contains("s3cr3t"))
    }
}
