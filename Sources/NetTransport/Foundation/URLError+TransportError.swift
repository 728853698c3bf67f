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
    /// is ``NetCore/TransportError/Kind/connectionLost``), else the one its kind means, with `error`'s one-line text
    /// as the description and `error` beneath. The failing URL is not kept, so printing the error shows no query
    /// value.
    public init(_ error: TransportError) {
        let original = (error.underlying as? URLError)?.code
        let code = original.flatMap { Self.kind(of: $0) == error.kind ? $0 : nil } ?? Self.code(of: error.kind)
        self.init(code, userInfo: [NSLocalizedDescriptionKey: error.description, NSUnderlyingErrorKey: error])
    }

    /// The kind a URLSession error code means.
    static func kind(of code: URLError.Code) -> TransportError.Kind {
        switch code {
        case .cannotConnectToHost: .cannotConnect
        case .networkConnectionLost: .connectionLost
        case .timedOut: .timedOut
        case .cannotFindHost, .dnsLookupFailed: .cannotFindHost
        case .notConnectedToInternet, .internationalRoamingOff, .dataNotAllowed, .callIsActive: .notConnected
        case .badServerResponse, .cannotParseResponse, .zeroByteResource, .cannotDecodeRawData, .cannotDecodeContentData:
            .badResponse
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted, .serverCertificateHasUnknownRoot,
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
