#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import LoopbackServer
@testable import NetAsyncHTTPClient
import NetCore
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Testing

@Suite("AsyncHTTPClient transport: error translation")
struct TransportErrorTranslationTests {
    func translated(_ error: any Error, _ phase: TransportErrorTranslation.Phase = .beforeHead, cancelled: Bool = false)
        -> any Error
    {
        TransportErrorTranslation.translate(error, phase: phase, host: "api.example.com", taskIsCancelled: cancelled)
    }

    func kind(_ error: any Error, _ phase: TransportErrorTranslation.Phase = .beforeHead, cancelled: Bool = false)
        -> TransportError.Kind?
    {
        (translated(error, phase, cancelled: cancelled) as? TransportError)?.kind
    }

    @Test(
        "timeouts of every kind are timedOut",
        arguments: [
            HTTPClientError.readTimeout, .writeTimeout, .deadlineExceeded, .connectTimeout, .tlsHandshakeTimeout,
            .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout,
        ])
    func timeouts(error: HTTPClientError) {
        #expect(kind(error) == .timedOut)
        #expect(kind(error, .body) == .timedOut)
    }

    @Test("a connection that closes before the head was reset; once the body streams, any failure lost the connection")
    func closedConnections() {
        #expect(kind(HTTPClientError.remoteConnectionClosed) == .connectionReset)
        #expect(kind(HTTPClientError.remoteConnectionClosed, .body) == .connectionLost)
        #expect(kind(IOError(errnoCode: ECONNRESET, reason: "read")) == .connectionReset)
        #expect(kind(IOError(errnoCode: ECONNRESET, reason: "read"), .body) == .connectionLost)
        #expect(kind(ChannelError.eof) == .connectionReset)
        #expect(kind(ChannelError.eof, .body) == .connectionLost)
        #expect(kind(HTTPParserError.invalidEOFState, .body) == .connectionLost)
        #expect(kind(HTTPClientError.bodyLengthMismatch, .body) == .connectionLost)
        #expect(kind(NIOSSLError.uncleanShutdown, .body) == .connectionLost)
    }

    @Test("garbage where a head should be is a malformed response")
    func badResponses() {
        #expect(kind(HTTPParserError.invalidEOFState) == .badResponse)
        #expect(kind(HTTPClientError.invalidProxyResponse) == .badResponse)
    }

    @Test(
        "socket errors say what the system said",
        arguments: [
            (ECONNREFUSED, TransportError.Kind.cannotConnect), (EHOSTUNREACH, .cannotConnect), (ETIMEDOUT, .timedOut),
            (ENETUNREACH, .notConnected), (ENETDOWN, .notConnected), (EPIPE, .connectionReset), (EACCES, .other),
        ])
    func errnos(code: Int32, expected: TransportError.Kind) {
        #expect(kind(IOError(errnoCode: code, reason: "connect")) == expected)
    }

    @Test("TLS failures are tlsFailure")
    func tls() {
        #expect(kind(NIOSSLError.handshakeFailed(.sslError([]))) == .tlsFailure)
        #expect(kind(BoringSSLError.sslError([])) == .tlsFailure)
        #expect(kind(NIOSSLError.unableToValidateCertificate, .body) == .tlsFailure)
    }

    @Test("URLs the client cannot send, and redirects without end, have kinds of their own")
    func urlsAndRedirects() {
        #expect(kind(HTTPClientError.invalidURL) == .unsupportedURL)
        #expect(kind(HTTPClientError.emptyHost) == .unsupportedURL)
        #expect(kind(HTTPClientError.unsupportedScheme("ftp")) == .unsupportedURL)
        #expect(kind(HTTPClientError.redirectLimitReached) == .tooManyRedirects)
        #expect(kind(HTTPClientError.redirectCycleDetected) == .tooManyRedirects)
        #expect(kind(HTTPClientError.alreadyShutdown) == .other)
    }

    @Test("a refused connection, as SwiftNIO reports it after trying each address, is cannotConnect")
    func refusedConnection() async throws {
        let closed = try LoopbackClosedPort()
        let port = closed.port
        let error = try await connectionError { bootstrap in bootstrap.connect(host: "127.0.0.1", port: port) }
        withExtendedLifetime(closed) {}
        #expect(error is NIOConnectionError)
        #expect(kind(error) == .cannotConnect)
    }

    @Test("a name that does not resolve, as SwiftNIO reports it, is cannotFindHost")
    func unresolvedName() async throws {
        // A resolver that fails as getaddrinfo does for an unknown name, so nothing leaves the machine.
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let error = try await connectionError { bootstrap in
            bootstrap.resolver(FailingResolver(loop: loop)).connect(host: "nowhere.invalid", port: 80)
        }
        #expect((error as? NIOConnectionError)?.dnsAError != nil)
        #expect(kind(error) == .cannotFindHost)
    }

    @Test("cancellation is CancellationError for a cancelled caller, TransportError(.cancelled) otherwise")
    func cancellation() {
        for error in [HTTPClientError.cancelled, HTTPClientError.requestStreamCancelled, CancellationError()]
            as [any Error]
        {
            #expect(translated(error, .body, cancelled: true) is CancellationError)
            #expect(translated(error, .beforeHead, cancelled: true) is CancellationError)
            #expect(kind(error, .body, cancelled: false) == .cancelled)
        }
        // A cancelled caller does not turn a real failure into a cancellation.
        #expect(kind(HTTPClientError.readTimeout, .body, cancelled: true) == .timedOut)
    }

    @Test("a body that stood still for the idle timeout is timedOut")
    func bodyIdleTimeout() {
        #expect(kind(BodyRead.IdleTimeout(), .body) == .timedOut)
    }

    @Test("NetKit's own errors pass through, and any TransportErrorConvertible is converted")
    func passThrough() {
        let upload = UploadSourceError.streamLengthMismatch(expected: 2, actual: 1)
        #expect(translated(upload) as? UploadSourceError == upload)
        #expect(translated(NetworkError.invalidResponse, .body) as? NetworkError == .invalidResponse)
        let own = TransportError(.connectionReset, host: "other.example", detail: "kept")
        let passed = translated(own) as? TransportError
        #expect(passed?.kind == .connectionReset && passed?.host == "other.example" && passed?.detail == "kept")
        #expect(kind(Convertible()) == .notConnected)
    }

    @Test("the original error stays beneath, the host is named, and the text holds no address or URL")
    func underlyingAndText() throws {
        let translated = try #require(translated(HTTPClientError.redirectLimitReached) as? TransportError)
        #expect(translated.underlying as? HTTPClientError == .redirectLimitReached)
        #expect(translated.host == "api.example.com")
        let refused = try #require(
            self.translated(IOError(errnoCode: ECONNREFUSED, reason: "connect to 10.1.2.3:8080/secret?token=x"))
                as? TransportError)
        #expect(refused.underlying is IOError)
        #expect(refused.description.hasPrefix("Could not connect: api.example.com"))
        #expect(!refused.description.contains("10.1.2.3") && !refused.description.contains("secret"))
    }

    /// What connecting with a fresh SwiftNIO bootstrap fails with.
    func connectionError(
        _ connect: @Sendable (ClientBootstrap) -> EventLoopFuture<any Channel>
    ) async throws -> any Error {
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connectTimeout(.seconds(10))
        do {
            let channel = try await connect(bootstrap).get()
            try? await channel.close()
            Issue.record("the connection was made")
            return CancellationError()
        } catch {
            return error
        }
    }
}

/// A resolver that knows no name.
private struct FailingResolver: Resolver, Sendable {
    struct NoSuchName: Error {}
    let loop: any EventLoop

    func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        loop.makeFailedFuture(NoSuchName())
    }

    func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        loop.makeFailedFuture(NoSuchName())
    }

    func cancelQueries() {}
}

/// Another library's error that says which transport failure it is.
private struct Convertible: TransportErrorConvertible {
    var transportError: TransportError { TransportError(.notConnected) }
}
#endif
