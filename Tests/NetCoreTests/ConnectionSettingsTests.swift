import Foundation
import NetCore
import NetKitLock
import NetKitTesting
import Testing

/// Connection settings without a network: PEM text read strictly, a private key that no description shows, and the
/// engine's part — the settings reach the transport (the configuration's or the endpoint's), the proxy environment
/// is read for each URL and each redirect hop, and a transport that cannot apply a setting fails the request before
/// anything is sent.
@Suite("Connection settings")
struct ConnectionSettingsTests {
    static let base = URL(string: "https://api.example.com")!
    /// A PEM block's body needs only to be base64 for PEM reading; the TLS library judges the DER later.
    static let certificate = "-----BEGIN CERTIFICATE-----\nAQID\n-----END CERTIFICATE-----\n"
    static let keyBody = "c2VjcmV0LWtleS1ieXRlcy0xMjM0NTY="
    static let key = "-----BEGIN PRIVATE KEY-----\n\(keyBody)\n-----END PRIVATE KEY-----\n"

    struct Get: Endpoint {
        typealias Response = Data
        var path = "/items"
        var method: HTTPMethod { .get }
        var connection: ConnectionSettings? = nil
    }

    // MARK: PEM

    @Test("a certificate's PEM block gives its DER bytes, and back")
    func pemRoundTrip() throws {
        let certificate = try TLSCertificate(pem: Self.certificate)
        #expect(certificate.der == [1, 2, 3])
        #expect(try TLSCertificate(pem: certificate.pem) == certificate)
        let bundle = "junk before\n" + Self.certificate + Self.key + certificate.pem
        #expect(try TLSCertificate.chain(pem: bundle).count == 2, "the key block is skipped, text between ignored")
    }

    @Test(
        "text that is not one certificate is refused with what is wrong",
        arguments: [
            ("", "no -----BEGIN CERTIFICATE-----"),
            ("-----BEGIN CERTIFICATE-----\nAQID\n", "has no END line"),
            ("-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----", "not base64"),
            ("-----END CERTIFICATE-----", "without its BEGIN line"),
            (certificate + certificate, "holds 2 certificates"),
        ])
    func pemRefusals(_ text: String, _ expected: String) {
        #expect {
            _ = try TLSCertificate(pem: text)
        } throws: { error in
            (error as? ConnectionSettingError)?.description.contains(expected) == true
        }
    }

    @Test("a client identity's private key is in no description, mirror, dump or error")
    func keyStaysHidden() throws {
        let identity = try ClientIdentity(certificateChainPEM: Self.certificate, privateKeyPEM: Self.key)
        var settings = ConnectionSettings()
        settings.tls.clientIdentity = identity
        var dumped = ""
        dump(settings, to: &dumped)
        var request = TransportRequest(head: try HTTPRequestHead(method: .get, url: Self.base))
        request.connection = settings
        var dumpedRequest = ""
        dump(request, to: &dumpedRequest)
        for text in [
            identity.description, String(reflecting: identity), "\(settings)", String(reflecting: settings), dumped,
            dumpedRequest,
        ] {
            #expect(!text.contains(Self.keyBody), "\(text)")
        }
        #expect(identity.description == "client identity (1 certificate, private key hidden)")

        for (keyText, expected) in [
            ("", "holds no -----BEGIN PRIVATE KEY-----"),
            (Self.key + Self.key, "holds 2 private keys"),
            (Self.key.replacingOccurrences(of: "PRIVATE KEY", with: "ENCRYPTED PRIVATE KEY"), "is encrypted"),
        ] {
            #expect {
                _ = try ClientIdentity(certificateChainPEM: Self.certificate, privateKeyPEM: keyText)
            } throws: { error in
                let text = "\(error)"
                return text.contains(expected) && !text.contains(Self.keyBody)
            }
        }
    }

    // MARK: The engine

    @Test("the transport's defaults reach no transport as settings; the configuration's and the endpoint's do")
    func settingsReachTheTransport() async throws {
        let stub = StubTransport { _, _ in .data(Data()) }
        var configuration = RequestExecutor.Configuration()
        let executor = RequestExecutor(transport: stub, configuration: configuration)
        _ = try await executor.send(Get(), baseURL: Self.base)
        #expect(stub.requests.last?.connection == nil)

        configuration.connection.tls.minimumVersion = .tls13
        configuration.connection.httpVersion = .http1Only
        _ = try await RequestExecutor(transport: stub, configuration: configuration).send(Get(), baseURL: Self.base)
        #expect(stub.requests.last?.connection == configuration.connection)

        // The endpoint's own settings replace the configuration's as a whole.
        let own = ConnectionSettings(proxy: .direct)
        _ = try await RequestExecutor(transport: stub, configuration: configuration).send(
            Get(connection: own), baseURL: Self.base)
        #expect(stub.requests.last?.connection == own)
    }

    /// A transport that says nothing about settings: the protocol's default refuses them.
    final class SilentTransport: HTTPTransport {
        let sends = Lock(0)
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            sends.withLock { $0 += 1 }
            return TransportResponse(head: HTTPResponseHead(statusCode: 200), body: .empty)
        }
    }

    @Test("a transport that does not say which settings it applies refuses them: nothing is sent, nothing retried")
    func defaultRefuses() async throws {
        let transport = SilentTransport()
        var configuration = RequestExecutor.Configuration()
        configuration.connection.tls.trustedRoots = .only([try TLSCertificate(pem: Self.certificate)])
        configuration.defaultRetryPolicy = RetryPolicy(maxRetryCount: 3, delay: 0)
        let executor = RequestExecutor(transport: transport, configuration: configuration)
        let error = try await #require(throws: UnsupportedConnectionSettingError.self) {
            _ = try await executor.send(Get(), baseURL: Self.base)
        }
        #expect(error.setting == .trustedRoots)
        #expect(error.transport == "SilentTransport")
        #expect(error.description.contains("Nothing was sent"))
        #expect(error.localizedDescription == error.description)
        #expect(transport.sends.withLock { $0 } == 0)

        // Defaults need nothing from the transport.
        _ = try await RequestExecutor(transport: transport).send(Get(), baseURL: Self.base)
        #expect(transport.sends.withLock { $0 } == 1)
    }

    @Test("the proxy environment is read for each URL: proxied, bypassed by NO_PROXY, and again on a redirect hop")
    func environmentPerHop() async throws {
        let stub = StubTransport()
        stub.stub(.path("/items"), reply: .status(302, headers: ["Location": "https://internal.example/other"]))
        var configuration = RequestExecutor.Configuration()
        configuration.connection.proxy = .environment(
            ProxyEnvironment(httpsProxy: "http://proxy.example:3128", noProxy: "internal.example"))
        stub.stub(.host("internal.example"), reply: .data(Data("ok".utf8)))
        let executor = RequestExecutor(transport: stub, configuration: configuration)
        _ = try await executor.send(Get(), baseURL: Self.base)
        let proxies = stub.requests.map { $0.connection?.proxy }
        #expect(proxies == [.http(ProxyServer(host: "proxy.example", port: 3128)), .direct])
    }

    @Test("a proxy variable that is not an address fails the request before anything is sent, naming the variable")
    func invalidEnvironment() async throws {
        let stub = StubTransport { _, _ in .data(Data()) }
        var configuration = RequestExecutor.Configuration()
        configuration.connection.proxy = .environment(ProxyEnvironment(httpsProxy: "http://proxy.example:notaport"))
        let error = try await #require(throws: ConnectionSettingError.self) {
            _ = try await RequestExecutor(transport: stub, configuration: configuration).send(Get(), baseURL: Self.base)
        }
        #expect(error.setting.contains("HTTPS_PROXY"), "\(error)")
        #expect(stub.requestCount == 0)
    }

    @Test("identical requests with different connection settings never share a call")
    func coalescingKeepsSettingsApart() throws {
        var request = TransportRequest(head: try HTTPRequestHead(method: .get, url: Self.base))
        let transport = SilentTransport()
        let plain = CoalescingKey(request) { CredentialPartition(request, transport: transport, cookieJar: nil) }
        request.connection = ConnectionSettings(httpVersion: .http1Only)
        let pinned = CoalescingKey(request) { CredentialPartition(request, transport: transport, cookieJar: nil) }
        #expect(plain != pinned)
    }

    /// Answers with a response that says it came over HTTP/2.
    struct HTTP2Transport: HTTPTransport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            var response = TransportResponse(head: HTTPResponseHead(statusCode: 200), body: .empty)
            response.protocolVersion = .http2
            return response
        }
    }

    @Test("the HTTP version a response came over is in its metrics and in the log line")
    func protocolVersionVisible() async throws {
        let lines = Lock<[NetworkLogRecord]>([])
        let logger = NetworkLogger(
            subsystem: "test", minimumLevel: .debug, recordSink: { record in lines.withLock { $0.append(record) } })
        let executor = RequestExecutor(
            transport: HTTP2Transport(), configuration: .init(plugins: [LoggingPlugin(logger: logger)]))
        let response = try await executor.response(for: Get(), baseURL: Self.base)
        #expect(response.metrics.protocolVersion == .http2)
        let received = try #require(lines.withLock { $0 }.first { $0.event == .response })
        #expect(received.protocolVersion == .http2)
        #expect(received.message.hasSuffix("over HTTP/2"), "\(received.message)")
    }
}
