#if AsyncHTTPClient
import AsyncHTTPClient
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NetCore
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Says AsyncHTTPClient's and SwiftNIO's errors in NetKit's words: a ``TransportError`` of the kind the retry rules
/// read, `CancellationError` when the calling task was cancelled.
///
/// The original error stays beneath (``TransportError/underlying``), so nothing is lost; the detail names only the
/// error's type and case, never an address or a URL. Errors NetKit already speaks (``TransportError``,
/// ``NetworkError``, `UploadSourceError`) pass through, and any ``TransportErrorConvertible`` is converted. A
/// pure function, tested without I/O.
enum TransportErrorTranslation {
    /// Where the request stood when it failed.
    enum Phase: Sendable {
        /// Before the response head: connecting, sending, waiting.
        case beforeHead
        /// While the body streams: a connection that breaks now has cut the body short.
        case body
    }

    static func translate(_ error: any Error, phase: Phase, host: String?, taskIsCancelled: Bool) -> any Error {
        switch error {
        case is TransportError, is NetworkError, is UploadSourceError:
            return error
        case let error as any TransportErrorConvertible:
            return error.transportError
        case is BodyRead.IdleTimeout:
            return TransportError(
                .timedOut, host: host, detail: "no body byte within the request's idle timeout", underlying: error)
        case is CancellationError:
            return taskIsCancelled
                ? CancellationError()
                : TransportError(.cancelled, host: host, detail: "CancellationError", underlying: error)
        case _ where isDecompressionError(error):
            // Sending again would inflate the same bytes: a malformed response that is not transient.
            // SwiftNIO's limit error describes itself as "limit" alone: the sentence says which limit.
            let detail =
                "\(error)".contains("limit")
                ? "the decoded body grew past the decompression limit, more than the client's ratio (by default "
                    + "\(AsyncHTTPClientTransport.defaultDecompressionRatio) times the compressed bytes received): a "
                    + "compression bomb, or a body NetKit will not inflate"
                : "the compressed body could not be decoded (\(String(describing: error)))"
            return TransportError.undecodableBody(host: host, detail: detail, underlying: error)
        case let error as HTTPClientError:
            if taskIsCancelled, error == .cancelled || error == .requestStreamCancelled { return CancellationError() }
            return TransportError(
                kind(of: error, phase: phase), host: host, detail: "AsyncHTTPClient: \(error.shortDescription)",
                underlying: error)
        default:
            let (kind, detail) = describe(error, phase: phase)
            return TransportError(kind, host: host, detail: detail, underlying: error)
        }
    }

    /// The kind of an AsyncHTTPClient error.
    private static func kind(of error: HTTPClientError, phase: Phase) -> TransportError.Kind {
        switch error {
        case .cancelled, .requestStreamCancelled:
            .cancelled
        case .readTimeout, .writeTimeout, .deadlineExceeded, .connectTimeout, .tlsHandshakeTimeout,
            .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            .timedOut
        case .remoteConnectionClosed:
            phase == .body ? .connectionLost : .connectionReset
        case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath:
            .unsupportedURL
        case .redirectLimitReached, .redirectCycleDetected:
            .tooManyRedirects
        case .invalidProxyResponse:
            .badResponse
        // The one case with a value: matched by its fixed short text, which carries no value.
        case _ where error.shortDescription == "Unsupported scheme":
            .unsupportedURL
        default:
            phase == .body ? .connectionLost : .other
        }
    }

    /// The kind of a SwiftNIO or TLS error, and a detail that names it without its text (which may hold an
    /// address).
    private static func describe(_ error: any Error, phase: Phase) -> (TransportError.Kind, String) {
        switch error {
        case let error as NIOConnectionError:
            // A name that did not resolve leaves only DNS errors; otherwise each address was tried and failed.
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return (.cannotFindHost, "DNS lookup failed")
            }
            let timedOut = error.connectionErrors.contains { failure in
                if case .connectTimeout = failure.error as? ChannelError { return true }
                return (failure.error as? IOError)?.errnoCode == ETIMEDOUT
            }
            return (timedOut ? .timedOut : .cannotConnect, "NIOConnectionError")
        case is SocketAddressError, is SocketAddressError.UnknownHost:
            return (.cannotFindHost, "DNS lookup failed")
        case let error as IOError:
            return (kind(ofErrno: error.errnoCode, phase: phase), "IOError errno \(error.errnoCode)")
        case let error as ChannelError:
            let kind: TransportError.Kind =
                switch error {
                case .connectTimeout: .timedOut
                case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed:
                    phase == .body ? .connectionLost : .connectionReset
                default: phase == .body ? .connectionLost : .other
                }
            return (kind, "ChannelError")
        case is HTTPParserError:
            // Garbage where a head should be is a malformed answer; garbage mid-body cut the body short.
            return (phase == .body ? .connectionLost : .badResponse, "HTTPParserError")
        case let error as NIOSSLError where error == .uncleanShutdown:
            // The peer closed the connection without ending TLS: a closed connection, not a failed handshake.
            return (phase == .body ? .connectionLost : .connectionReset, "NIOSSLError.uncleanShutdown")
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            return (.tlsFailure, "\(type(of: error))")
        default:
            return (phase == .body ? .connectionLost : .other, "\(type(of: error))")
        }
    }

    /// Whether `error` is NIOHTTPCompression's, matched by name: that module is AsyncHTTPClient's, not a dependency
    /// of ours.
    private static func isDecompressionError(_ error: any Error) -> Bool {
        String(reflecting: type(of: error)).hasPrefix("NIOHTTPCompression.NIOHTTPDecompression.")
    }

    /// The kind a socket error number means.
    static func kind(ofErrno code: Int32, phase: Phase) -> TransportError.Kind {
        switch code {
        case ECONNREFUSED, EHOSTUNREACH, EHOSTDOWN, EADDRNOTAVAIL: .cannotConnect
        case ENETUNREACH, ENETDOWN: .notConnected
        case ETIMEDOUT: .timedOut
        case ECONNRESET, EPIPE, ECONNABORTED: phase == .body ? .connectionLost : .connectionReset
        default: phase == .body ? .connectionLost : .other
        }
    }
}
#endif
