#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NetCore
import NetMultipart
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Says AsyncHTTPClient's and SwiftNIO's errors in the words every NetKit transport uses: `URLError`s with the
/// same codes as the URLSession transport, `CancellationError` when the calling task was cancelled.
///
/// The original error stays beneath (`NSUnderlyingErrorKey`), so nothing is lost. Errors NetKit already speaks
/// (`URLError`, ``NetworkError``, `UploadSourceError`) pass through. A pure function, tested without I/O.
enum TransportErrorTranslation {
    /// Where the request stood when it failed.
    enum Phase: Sendable {
        /// Before the response head: connecting, sending, waiting.
        case beforeHead
        /// While the body streams: a connection that breaks now has cut the body short.
        case body
    }

    static func translate(_ error: any Error, phase: Phase, taskIsCancelled: Bool) -> any Error {
        switch error {
        case is URLError, is NetworkError, is UploadSourceError:
            return error
        case is CancellationError:
            return taskIsCancelled ? CancellationError() : urlError(.cancelled, error)
        case let error as HTTPClientError:
            return translate(error, phase: phase, taskIsCancelled: taskIsCancelled)
        case is NIOConnectionError:
            return urlError(.cannotConnectToHost, error)
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED: return urlError(.cannotConnectToHost, error)
            case ETIMEDOUT: return urlError(.timedOut, error)
            default: return urlError(.networkConnectionLost, error)
            }
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return urlError(.timedOut, error)
            default: return urlError(.networkConnectionLost, error)
            }
        case is HTTPParserError:
            return urlError(phase == .body ? .networkConnectionLost : .badServerResponse, error)
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            return urlError(.secureConnectionFailed, error)
        default:
            return urlError(phase == .body ? .networkConnectionLost : .unknown, error)
        }
    }

    private static func translate(_ error: HTTPClientError, phase: Phase, taskIsCancelled: Bool) -> any Error {
        switch error {
        case .cancelled, .requestStreamCancelled:
            return taskIsCancelled ? CancellationError() : urlError(.cancelled, error)
        case .readTimeout, .writeTimeout, .deadlineExceeded, .connectTimeout, .tlsHandshakeTimeout,
             .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            return urlError(.timedOut, error)
        case .remoteConnectionClosed:
            return urlError(.networkConnectionLost, error)
        case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath:
            return urlError(.badURL, error)
        case .redirectLimitReached, .redirectCycleDetected:
            return urlError(.httpTooManyRedirects, error)
        case .proxyAuthenticationRequired:
            return urlError(.userAuthenticationRequired, error)
        case .invalidProxyResponse:
            return urlError(.badServerResponse, error)
        default:
            return urlError(phase == .body ? .networkConnectionLost : .unknown, error)
        }
    }

    private static func urlError(_ code: URLError.Code, _ underlying: any Error) -> URLError {
        URLError(code, userInfo: [
            NSUnderlyingErrorKey: underlying,
            NSLocalizedDescriptionKey: "\(underlying)",
        ])
    }
}
#endif
