#if AsyncHTTPClient
import Foundation
import LoopbackServer
import NetAsyncHTTPClient
import NetCore
import NetKitLock
import Testing

/// NetKit's connection settings over real TLS on AsyncHTTPClient: a throw-away CA and certificates made at run time
/// with openssl (no key committed), Debian's nginx on 127.0.0.1 (`ssl`, `http2`, client certificates), and a proxy of
/// the test server's own. Each setting is proven through the engine, as a user sets it: trusted roots accepted and
/// an unknown root refused, a client certificate required and presented, a minimum TLS version, pins refused
/// before anything is sent, HTTP/2 negotiated and HTTP/1.1 forced, CONNECT through a proxy with credentials, and the
/// proxy environment. Skipped, saying how to install them, where nginx or openssl is missing; CI sets
/// `NETKIT_REQUIRE_TLS_TESTS=1`, which turns the skip into a failure.
@Suite("AsyncHTTPClient transport: TLS, proxies and HTTP/2 over real TLS", .timeLimit(.minutes(10)))
struct AsyncHTTPClientConnectionSettingsTests {
    static let toolsPresent = NginxTLSServer.isAvailable && TestCertificateAuthority.opensslPath != nil
    static let missingTools =
        "needs nginx and openssl: \(NginxTLSServer.installHint); apt-get install -y openssl"

    struct Get: Endpoint {
        typealias Response = String
        var path: String
        var method: HTTPMethod { .get }
        var connection: ConnectionSettings? = nil
    }

    /// A CA, nginx serving its certificate, and a transport of the test's own; all three ended by `stop()`.
    struct Setup {
        let authority: TestCertificateAuthority
        let nginx: NginxTLSServer
        let transport = AsyncHTTPClientTransport()

        var ca: TLSCertificate { try! TLSCertificate(pem: authority.caCertificatePEM) }

        func executor(_ connection: ConnectionSettings, plugins: [any Plugin] = []) -> RequestExecutor {
            var configuration = RequestExecutor.Configuration(plugins: plugins)
            configuration.connection = connection
            return RequestExecutor(transport: transport, configuration: configuration)
        }

        func get(_ path: String, _ connection: ConnectionSettings) async throws -> NetworkResponse<String> {
            try await executor(connection).response(for: Get(path: path), baseURL: nginx.baseURL)
        }

        func stop() async throws {
            try await transport.shutdown()
            nginx.stop()
            authority.remove()
        }
    }

    /// Makes the certificates and starts nginx on a thread of their own: both wait for processes by blocking, and
    /// the cooperative pool's few threads belong to the tests running meanwhile.
    static func start(
        http2: Bool = false, requireClientCertificate: Bool = false, protocols: String = "TLSv1.2 TLSv1.3"
    ) async throws -> Setup {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Setup, any Error>) in
            Thread {
                continuation.resume(
                    with: Result {
                        let authority = try TestCertificateAuthority()
                        do {
                            let nginx = try NginxTLSServer(
                                authority: authority, http2: http2,
                                requireClientCertificate: requireClientCertificate, protocols: protocols)
                            return Setup(authority: authority, nginx: nginx)
                        } catch {
                            authority.remove()
                            throw error
                        }
                    })
            }.start()
        }
    }

    static func tls(_ build: (inout TLSSettings) throws -> Void) rethrows -> ConnectionSettings {
        var settings = ConnectionSettings()
        try build(&settings.tls)
        return settings
    }

    @Test("CI runs these tests: with NETKIT_REQUIRE_TLS_TESTS set, missing nginx or openssl is a failure")
    func toolsRequiredInCI() {
        if ProcessInfo.processInfo.environment["NETKIT_REQUIRE_TLS_TESTS"] == "1" {
            #expect(Self.toolsPresent, "\(Self.missingTools)")
        }
    }

    @Test(
        "a private CA's root is trusted when given (alone or beside the system's), and a server it did not issue is refused",
        .enabled(if: toolsPresent, "\(missingTools)"))
    func trustedRoots() async throws {
        let setup = try await Self.start()
        let ca = setup.ca
        let only = try await setup.get("/hello", Self.tls { $0.trustedRoots = .only([ca]) })
        #expect(only.value == "hello")
        let added = try await setup.get("/hello", Self.tls { $0.trustedRoots = .systemAnd([ca]) })
        #expect(added.value == "hello")

        let unknown = try TLSCertificate(pem: setup.authority.unknownCACertificatePEM)
        await #expect(throws: TransportError.self, "a root that did not issue the server's certificate") {
            _ = try await setup.get("/hello", Self.tls { $0.trustedRoots = .only([unknown]) })
        }
        await #expect(throws: TransportError.self, "the system's roots alone do not know a private CA") {
            _ = try await setup.get("/hello", ConnectionSettings(httpVersion: .automatic))
        }
        try await setup.stop()
    }

    @Test(
        "a server that requires a client certificate gets the one the settings name, and refuses requests without it",
        .enabled(if: toolsPresent, "\(missingTools)"))
    func clientCertificate() async throws {
        let setup = try await Self.start(requireClientCertificate: true)
        let authority = setup.authority
        let ca = setup.ca
        let error = try await #require(throws: HTTPError.self, "nginx answers 400 without a certificate") {
            _ = try await setup.get("/client", Self.tls { $0.trustedRoots = .only([ca]) })
        }
        #expect(error.statusCode == 400)

        let identity = try ClientIdentity(
            certificateChainPEM: authority.clientCertificatePEM, privateKeyPEM: authority.clientKeyPEM)
        let presented = try await setup.get(
            "/client",
            Self.tls {
                $0.trustedRoots = .only([ca])
                $0.clientIdentity = identity
            })
        #expect(presented.value.hasPrefix("SUCCESS"), "\(presented.value)")
        #expect(presented.value.contains("NetKit Test Client"), "\(presented.value)")

        let stranger = try ClientIdentity(
            certificateChainPEM: authority.unknownClientCertificatePEM, privateKeyPEM: authority.unknownClientKeyPEM)
        await #expect(throws: HTTPError.self, "a certificate another CA issued is refused") {
            _ = try await setup.get(
                "/client",
                Self.tls {
                    $0.trustedRoots = .only([ca])
                    $0.clientIdentity = stranger
                })
        }
        try await setup.stop()
    }

    @Test(
        "a minimum TLS version above what the server speaks fails the handshake; at or below it, the request goes",
        .enabled(if: toolsPresent, "\(missingTools)"))
    func minimumVersion() async throws {
        let setup = try await Self.start(protocols: "TLSv1.2")
        let ca = setup.ca
        let twelve = try await setup.get(
            "/tls",
            Self.tls {
                $0.trustedRoots = .only([ca])
                $0.minimumVersion = .tls12
            })
        #expect(twelve.value == "TLSv1.2")
        await #expect(throws: TransportError.self) {
            _ = try await setup.get(
                "/tls",
                Self.tls {
                    $0.trustedRoots = .only([ca])
                    $0.minimumVersion = .tls13
                })
        }
        try await setup.stop()
    }

    @Test(
        "pins are refused before anything is sent, saying why and what to do instead",
        .enabled(if: toolsPresent, "\(missingTools)"))
    func pinsRefused() async throws {
        let setup = try await Self.start()
        let pin = try CertificatePin(
            host: "127.0.0.1", sha256: [setup.authority.serverSPKIPin, setup.authority.caSPKIPin])
        let error = try await #require(throws: UnsupportedConnectionSettingError.self) {
            _ = try await setup.get("/hello", Self.tls { $0.pins = [pin] })
        }
        #expect(error.setting == .certificatePins)
        #expect(error.description.contains("trustedRoots = .only"), "\(error)")
        #expect(!setup.nginx.accessLog.contains("/hello"), "nginx saw the request")
        try await setup.stop()
    }

    @Test(
        "HTTP/2 is negotiated over TLS where the server offers it, HTTP/1.1 when forced; metrics and logs say which",
        .enabled(if: toolsPresent, "\(missingTools)"))
    func httpVersions() async throws {
        let setup = try await Self.start(http2: true)
        let ca = setup.ca
        let records = Lock<[NetworkLogRecord]>([])
        let logger = NetworkLogger(
            subsystem: "test", minimumLevel: .debug, recordSink: { record in records.withLock { $0.append(record) } })
        var automatic = ConnectionSettings()
        automatic.tls.trustedRoots = .only([ca])
        let two = try await setup.executor(automatic, plugins: [LoggingPlugin(logger: logger)]).response(
            for: Get(path: "/protocol"), baseURL: setup.nginx.baseURL)
        #expect(two.value == "HTTP/2.0")
        #expect(two.metrics.protocolVersion == .http2)
        #expect(records.withLock { $0 }.contains { $0.event == .response && $0.message.hasSuffix("over HTTP/2") })

        var forced = automatic
        forced.httpVersion = .http1Only
        let one = try await setup.get("/protocol", forced)
        #expect(one.value == "HTTP/1.1")
        #expect(one.metrics.protocolVersion == .http11)
        try await setup.stop()
    }

    @Test(
        "HTTPS through an HTTP proxy's CONNECT tunnel, its credentials sent to the proxy and never logged",
        .enabled(if: toolsPresent, "\(missingTools)"))
    func connectThroughProxy() async throws {
        let setup = try await Self.start()
        let password = "proxy-secret-4711"
        let proxy = try LoopbackProxy(requiredCredentials: (username: "alice", password: password))
        defer { proxy.stop() }
        let records = Lock<[String]>([])
        let logger = NetworkLogger(
            subsystem: "test", minimumLevel: .debug,
            recordSink: { record in records.withLock { $0.append(record.message + (record.error ?? "")) } })
        var settings = ConnectionSettings()
        settings.tls.trustedRoots = .only([setup.ca])
        settings.proxy = .http(
            ProxyServer(
                host: "127.0.0.1", port: proxy.port,
                credentials: ProxyCredentials(username: "alice", password: password)))
        let plugins: [any Plugin] = [LoggingPlugin(logger: logger, includesCURL: true)]
        let response = try await setup.executor(settings, plugins: plugins).response(
            for: Get(path: "/hello"), baseURL: setup.nginx.baseURL)
        #expect(response.value == "hello")
        #expect(proxy.tunnels == ["127.0.0.1:\(setup.nginx.port)"])
        #expect(!records.withLock { $0 }.isEmpty)
        #expect(!records.withLock { $0 }.contains { $0.contains(password) }, "a log line holds the proxy password")
        #expect(!"\(settings)".contains(password))

        var wrong = settings
        wrong.proxy = .http(ProxyServer(host: "127.0.0.1", port: proxy.port))
        await #expect(throws: (any Error).self, "a proxy that wants credentials refuses the tunnel without them") {
            _ = try await setup.get("/hello", wrong)
        }
        #expect(proxy.tunnels.count == 1)
        try await setup.stop()
    }

    @Test(
        "HTTPS through a SOCKS5 proxy, which is given the host name; SOCKS5 credentials are refused before sending",
        .enabled(if: toolsPresent, "\(missingTools)"))
    func socks5() async throws {
        let setup = try await Self.start()
        let proxy = try LoopbackProxy()
        defer { proxy.stop() }
        var settings = ConnectionSettings()
        settings.tls.trustedRoots = .only([setup.ca])
        settings.proxy = .socks5(ProxyServer(host: "127.0.0.1", port: proxy.port))
        let response = try await setup.get("/hello", settings)
        #expect(response.value == "hello")
        #expect(proxy.socksTunnels == ["127.0.0.1:\(setup.nginx.port)"])
        #expect(proxy.tunnels.isEmpty)

        settings.proxy = .socks5(
            ProxyServer(
                host: "127.0.0.1", port: proxy.port, credentials: ProxyCredentials(username: "alice", password: "pw")))
        let error = try await #require(throws: UnsupportedConnectionSettingError.self) {
            _ = try await setup.get("/hello", settings)
        }
        #expect(error.setting == .proxy)
        #expect(error.description.contains("SOCKS5"), "\(error)")
        #expect(proxy.acceptedConnections == 1)
        try await setup.stop()
    }

    @Test(
        "the proxy environment, read as Go reads it: a named host goes through HTTP_PROXY, loopback never does",
        .enabled(if: toolsPresent, "\(missingTools)"))
    func proxyEnvironment() async throws {
        let setup = try await Self.start()
        let proxy = try LoopbackProxy(hosts: ["service.test": "127.0.0.1"])
        defer { proxy.stop() }
        var settings = ConnectionSettings()
        settings.proxy = .environment(ProxyEnvironment(httpProxy: proxy.url.absoluteString, noProxy: "other.test"))
        let executor = setup.executor(settings)
        let named = try await executor.response(
            for: Get(path: "/hello"), baseURL: URL(string: "http://service.test:\(setup.nginx.plainPort)")!)
        #expect(named.value == "hello")
        #expect((proxy.tunnels + proxy.forwarded).contains { $0.contains("service.test") })

        let before = proxy.acceptedConnections
        let loopback = try await executor.response(for: Get(path: "/hello"), baseURL: setup.nginx.plainBaseURL)
        #expect(loopback.value == "hello")
        #expect(proxy.acceptedConnections == before, "a loopback address went through the proxy")
        try await setup.stop()
    }
}
#endif
