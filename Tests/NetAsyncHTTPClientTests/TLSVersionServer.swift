#if AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import LoopbackServer

/// A TLS server on 127.0.0.1 that offers the given ALPN protocols (`h2`, `http/1.1`) and answers every request
/// with the HTTP version it arrived over, so a test can see what a client negotiated. Its certificate is issued at
/// run time by a throw-away ``TestCertificateAuthority``: no key is committed.
struct TLSVersionServer {
    let channel: any Channel
    let port: Int

    static func start(offering protocols: [String], authority: TestCertificateAuthority) async throws
        -> TLSVersionServer
    {
        let certificate = try NIOSSLCertificate(bytes: Array(authority.serverCertificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(authority.serverKeyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
        configuration.applicationProtocols = protocols
        let context = try NIOSSLContext(configuration: configuration)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }.flatMap {
                    channel.configureCommonHTTPServerPipeline { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(VersionEchoHandler())
                        }
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return TLSVersionServer(channel: channel, port: channel.localAddress?.port ?? 0)
    }

    /// The client configuration that trusts `authority`, and so this server's certificate.
    static func trustingTLSConfiguration(_ authority: TestCertificateAuthority) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates([
            try NIOSSLCertificate(bytes: Array(authority.caCertificatePEM.utf8), format: .pem)
        ])
        return configuration
    }

    func stop() async throws {
        try await channel.close()
    }
}

/// Answers each request with `HTTP/<major>.<minor>` of the request, once its end has arrived.
private final class VersionEchoHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var version = HTTPVersion.http1_1

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            version = head.version
        case .body:
            break
        case .end:
            let body = "HTTP/\(version.major).\(version.minor)"
            var headers = HTTPHeaders()
            headers.add(name: "Content-Length", value: "\(body.utf8.count)")
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
#endif
