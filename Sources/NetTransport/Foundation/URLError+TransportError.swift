import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

extension URLError: TransportErrorConvertible {
    /// The failure in NetKit's words: the kind its code means, the host of the failing URL, and the code as the
    /// detail. The URL itself (query values, perhaps keys) is left out.
    public var transportError: TransportError {
        TransportError(
            Self.kind(of: code),
            host: failingURL?.host(),
            detail: "URLError \(code.rawValue) \(URLErrorName.of(code))",
            underlying: URLError(code)
        )
    }

    /// The `URLError` EKNetwork users catch for `error`: the code of the URLSession error it came from when that
    /// code means the same kind (a transport may have judged the failure better: libcurl's -1 for a body cut short
    /// is ``NetCore/TransportError/Kind/connectionLost``), else the one its kind means, with `error` beneath.
    ///
    /// Its `localizedDescription` (and the failure reason Linux's Foundation prints) is one line naming what failed,
    /// where and what to check: `Could not connect to 127.0.0.1:8765 (cannotConnect: URLError -1004 …). Is a server
    /// running and listening on 127.0.0.1:8765? Nothing accepted the connection there.` No failing URL is kept, so
    /// printing the error shows no path or query value.
    public init(_ error: TransportError) {
        let original = (error.underlying as? URLError)?.code
        let code = original.flatMap { Self.kind(of: $0) == error.kind ? $0 : nil } ?? Self.code(of: error.kind)
        let sentence = Self.sentence(for: error)
        // Linux's Foundation prints the failure reason where Apple's prints the description: both are the sentence.
        self.init(
            code,
            userInfo: [
                NSLocalizedDescriptionKey: sentence, NSLocalizedFailureReasonErrorKey: sentence,
                NSUnderlyingErrorKey: error,
            ]
        )
    }

    /// One sentence naming what failed, where (host and port), and the kind (and detail) in parentheses; then what
    /// to check (``NetCore/TransportError/hint``).
    static func sentence(for error: TransportError) -> String {
        let host = error.host.flatMap { $0.isEmpty ? nil : HeaderValidation.printable($0) }
        let server = error.location.map(HeaderValidation.printable) ?? "the server"
        let what =
            switch error.kind {
            case .cannotConnect: "Could not connect to \(server)"
            case .connectionReset: "The connection to \(server) was reset"
            case .connectionLost: "The connection to \(server) was lost"
            case .timedOut: "The request to \(server) timed out"
            case .cannotFindHost: host.map { "The host \($0) could not be found" } ?? "The host could not be found"
            case .notConnected: "Could not reach \(server): the device is not connected to a network"
            case .badResponse: "The response from \(server) was not well-formed HTTP"
            case .tlsFailure: "TLS with \(server) failed"
            case .tooManyRedirects: "The redirects from \(server) went on too long or in a circle"
            case .unsupportedURL: "The URL for \(server) cannot be sent by this transport"
            case .cancelled: "The transfer from \(server) was cancelled"
            default: "The request to \(server) failed"
            }
        var sentence = "\(what) (\(error.kind))"
        if let detail = error.detail, !detail.isEmpty {
            sentence = "\(what) (\(error.kind): \(HeaderValidation.printable(detail)))"
        }
        guard let hint = error.hint else { return sentence }
        return "\(sentence). \(HeaderValidation.printable(hint))."
    }

    /// The kind a URLSession error code means.
    static func kind(of code: URLError.Code) -> TransportError.Kind {
        switch code {
        case .cannotConnectToHost: .cannotConnect
        case .networkConnectionLost: .connectionLost
        case .timedOut: .timedOut
        case .cannotFindHost, .dnsLookupFailed: .cannotFindHost
        case .notConnectedToInternet, .internationalRoamingOff, .dataNotAllowed, .callIsActive: .notConnected
        case .badServerResponse, .cannotParseResponse, .zeroByteResource, .cannotDecodeRawData,
            .cannotDecodeContentData:
            .badResponse
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot,
            .serverCertificateNotYetValid, .clientCertificateRejected, .clientCertificateRequired:
            .tlsFailure
        case .httpTooManyRedirects, .redirectToNonExistentLocation: .tooManyRedirects
        case .badURL, .unsupportedURL: .unsupportedURL
        case .cancelled, .userCancelledAuthentication: .cancelled
        default: .other
        }
    }

    /// The code that says `kind` best.
    static func code(of kind: TransportError.Kind) -> URLError.Code {
        switch kind {
        case .cannotConnect: .cannotConnectToHost
        case .connectionReset, .connectionLost: .networkConnectionLost
        case .timedOut: .timedOut
        case .cannotFindHost: .cannotFindHost
        case .notConnected: .notConnectedToInternet
        case .badResponse: .badServerResponse
        case .tlsFailure: .secureConnectionFailed
        case .tooManyRedirects: .httpTooManyRedirects
        case .unsupportedURL: .unsupportedURL
        case .cancelled: .cancelled
        default: .unknown
        }
    }
}
