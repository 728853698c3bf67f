#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NetCore
@testable import NetAsyncHTTPClient
import NetMultipart
import NIOCore
import NIOHTTP1
import Testing

@Suite("AsyncHTTPClient transport: error translation")
struct TransportErrorTranslationTests {
    func code(_ error: any Error, _ phase: TransportErrorTranslation.Phase = .beforeHead, cancelled: Bool = false) -> URLError.Code? {
        (TransportErrorTranslation.translate(error, phase: phase, taskIsCancelled: cancelled) as? URLError)?.code
    }

    @Test("timeouts of every kind are URLError(.timedOut)", arguments: [
        HTTPClientError.readTimeout, .writeTimeout, .deadlineExceeded, .connectTimeout, .tlsHandshakeTimeout,
        .getConnectionFromPoolTimeout,
    ])
    func timeouts(error: HTTPClientError) {
        #expect(code(error) == .timedOut)
    }

    @Test("a closed connection is networkConnectionLost, and so is any failure mid-body")
    func lostConnections() {
        #expect(code(HTTPClientError.remoteConnectionClosed) == .networkConnectionLost)
        #expect(code(HTTPParserError.invalidEOFState, .body) == .networkConnectionLost)
        #expect(code(HTTPParserError.invalidEOFState, .beforeHead) == .badServerResponse)
        #expect(code(ChannelError.eof, .body) == .networkConnectionLost)
        #expect(code(HTTPClientError.bodyLengthMismatch, .body) == .networkConnectionLost)
    }

    @Test("cancellation is CancellationError for a cancelled caller, URLError(.cancelled) otherwise")
    func cancellation() {
        for error in [HTTPClientError.cancelled, CancellationError()] as [any Error] {
            #expect(TransportErrorTranslation.translate(error, phase: .body, taskIsCancelled: true) is CancellationError)
            #expect(code(error, .body, cancelled: false) == .cancelled)
        }
    }

    @Test("NetKit's own errors pass through, and the original error stays beneath a translated one")
    func passThrough() throws {
        let upload = UploadSourceError.streamLengthMismatch(expected: 2, actual: 1)
        #expect(TransportErrorTranslation.translate(upload, phase: .beforeHead, taskIsCancelled: false) as? UploadSourceError == upload)
        #expect(TransportErrorTranslation.translate(NetworkError.invalidResponse, phase: .body, taskIsCancelled: false) as? NetworkError == .invalidResponse)
        let translated = try #require(TransportErrorTranslation.translate(HTTPClientError.redirectLimitReached, phase: .beforeHead, taskIsCancelled: false) as? URLError)
        #expect(translated.code == .httpTooManyRedirects)
        #expect(translated.userInfo[NSUnderlyingErrorKey] as? HTTPClientError == .redirectLimitReached)
    }

    @Test("refused connections are cannotConnectToHost")
    func refused() {
        #expect(code(IOError(errnoCode: ECONNREFUSED, reason: "connect")) == .cannotConnectToHost)
    }
}
#endif
