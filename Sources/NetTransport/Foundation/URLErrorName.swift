import Foundation

/// Names of `URLError` codes: on Linux a `URLError` prints as a bare number, and its user info carries the URL.
enum URLErrorName {
    static func of(_ code: URLError.Code) -> String {
        names[code] ?? "code \(code.rawValue)"
    }

    private static let names: [URLError.Code: String] = [
        .unknown: "unknown",
        .cancelled: "cancelled",
        .badURL: "badURL",
        .timedOut: "timedOut",
        .unsupportedURL: "unsupportedURL",
        .cannotFindHost: "cannotFindHost",
        .cannotConnectToHost: "cannotConnectToHost",
        .networkConnectionLost: "networkConnectionLost",
        .dnsLookupFailed: "dnsLookupFailed",
        .httpTooManyRedirects: "httpTooManyRedirects",
        .resourceUnavailable: "resourceUnavailable",
        .notConnectedToInternet: "notConnectedToInternet",
        .redirectToNonExistentLocation: "redirectToNonExistentLocation",
        .badServerResponse: "badServerResponse",
        .userCancelledAuthentication: "userCancelledAuthentication",
        .userAuthenticationRequired: "userAuthenticationRequired",
        .zeroByteResource: "zeroByteResource",
        .cannotDecodeRawData: "cannotDecodeRawData",
        .cannotDecodeContentData: "cannotDecodeContentData",
        .cannotParseResponse: "cannotParseResponse",
        .fileDoesNotExist: "fileDoesNotExist",
        .dataLengthExceedsMaximum: "dataLengthExceedsMaximum",
        .secureConnectionFailed: "secureConnectionFailed",
        .serverCertificateHasBadDate: "serverCertificateHasBadDate",
        .serverCertificateUntrusted: "serverCertificateUntrusted",
        .serverCertificateHasUnknownRoot: "serverCertificateHasUnknownRoot",
        .serverCertificateNotYetValid: "serverCertificateNotYetValid",
        .clientCertificateRejected: "clientCertificateRejected",
        .clientCertificateRequired: "clientCertificateRequired",
        .cannotLoadFromNetwork: "cannotLoadFromNetwork",
    ]
}
