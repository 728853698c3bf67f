import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import NetCore
import NetTransport
import Testing

/// What URLSessionTransport does with connection settings: on Linux every TLS setting, a proxy of your own and
/// HTTP/1.1 only are refused before anything is sent, each with the reason and what would apply it (the rows of
/// Docs/Security.md); a direct connection is refused only while libcurl would read a proxy from the environment.
@Suite("URLSession transport: connection settings")
struct URLSessionConnectionSettingsTests {
    static let certificate = try! TLSCertificate(pem: "-----BEGIN CERTIFICATE-----\nAQID\n-----END CERTIFICATE-----")
    static let pin = try! CertificatePin(
        host: "api.example.com",
        sha256: [
            "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=",
        ])

    /// Each setting alone, with the words its refusal must hold.
    static let settings: [(String, ConnectionSettings, UnsupportedConnectionSettingError.Setting, String)] = [
        (
            "trusted roots", ConnectionSettings(tls: TLSSettings(trustedRoots: .only([certificate]))), .trustedRoots,
            "update-ca-certificates"
        ),
        (
            "added roots", ConnectionSettings(tls: TLSSettings(trustedRoots: .systemAnd([certificate]))), .trustedRoots,
            "AsyncHTTPClientTransport"
        ),
        ("pins", ConnectionSettings(tls: TLSSettings(pins: [pin])), .certificatePins, "server-trust challenge"),
        (
            "minimum version", ConnectionSettings(tls: TLSSettings(minimumVersion: .tls13)), .minimumTLSVersion,
            "TLS 1.3"
        ),
        ("HTTP/1.1 only", ConnectionSettings(httpVersion: .http1Only), .httpVersion, "HTTP/2"),
        (
            "HTTP proxy", ConnectionSettings(proxy: .http(ProxyServer(host: "proxy.example", port: 3128))), .proxy,
            "proxy.example:3128"
        ),
        (
            "SOCKS5 proxy", ConnectionSettings(proxy: .socks5(ProxyServer(host: "socks.example", port: 1080))), .proxy,
            "socks.example:1080"
        ),
    ]

    static func head(_ scheme: String, host: String = "api.example.com") throws -> HTTPRequestHead {
        try HTTPRequestHead(url: URL(string: "\(scheme)://\(host)/")!)
    }

    @Test("TLS settings bear on https alone, and pins on their own hosts: nothing else is refused for them")
    func onlyWhatBears() throws {
        let pinned = ConnectionSettings(tls: TLSSettings(trustedRoots: .only([Self.certificate]), pins: [Self.pin]))
        let transport = URLSessionTransport()
        #expect(transport.unsupportedSetting(in: pinned, for: try Self.head("http")) == nil, "no TLS on http")
        var pinsOnly = ConnectionSettings()
        pinsOnly.tls.pins = [Self.pin]
        #expect(transport.unsupportedSetting(in: pinsOnly, for: try Self.head("https", host: "cdn.example.net")) == nil)
        #if canImport(FoundationNetworking)
        #expect(transport.unsupportedSetting(in: pinsOnly, for: try Self.head("https"))?.setting == .certificatePins)
        #expect(transport.unsupportedSetting(in: pinned, for: try Self.head("https"))?.setting == .trustedRoots)
        #endif
    }

    #if canImport(FoundationNetworking)
    @Test("on Linux each TLS, proxy and HTTP-version setting is refused with why and what applies it")
    func refusals() throws {
        for (name, settings, setting, words) in Self.settings {
            let refusal = try #require(
                URLSessionTransport().unsupportedSetting(
                    in: settings, for: try HTTPRequestHead(url: URL(string: "https://api.example.com")!)),
                "\(name) was not refused")
            #expect(refusal.setting == setting, "\(name)")
            #expect(refusal.transport == "URLSessionTransport on Linux")
            #expect(refusal.description.contains(words), "\(name): \(refusal)")
            #expect(refusal.description.contains("Nothing was sent"), "\(name): \(refusal)")
        }
    }

    @Test("a client identity is refused too, and its key is not in the text")
    func clientIdentityRefused() throws {
        let key = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleQ==\n-----END PRIVATE KEY-----"
        let identity = try ClientIdentity(certificateChainPEM: Self.certificate.pem, privateKeyPEM: key)
        let refusal = try #require(
            URLSessionTransport().unsupportedSetting(
                in: ConnectionSettings(tls: TLSSettings(clientIdentity: identity)),
                for: try HTTPRequestHead(url: URL(string: "https://api.example.com")!)))
        #expect(refusal.setting == .clientIdentity)
        #expect(!refusal.description.contains("c2VjcmV0LWtleQ"))
    }

    @Test("a direct connection is refused while libcurl would read a proxy variable for the scheme, and only then")
    func directAgainstTheEnvironment() throws {
        let direct = ConnectionSettings(proxy: .direct)
        #expect(
            URLSessionConnectionSupport.unsupportedSetting(in: direct, for: try Self.head("https"), environment: [:])
                == nil)
        #expect(
            URLSessionConnectionSupport.unsupportedSetting(
                in: direct, for: try Self.head("https"), environment: ["https_proxy": ""]) == nil, "empty is unset")
        // libcurl ignores an upper-case HTTP_PROXY (httpoxy); it reads every other spelling.
        #expect(
            URLSessionConnectionSupport.unsupportedSetting(
                in: direct, for: try Self.head("http"), environment: ["HTTP_PROXY": "http://p:1"]) == nil)
        for (scheme, variable) in [
            ("http", "http_proxy"), ("https", "https_proxy"), ("https", "HTTPS_PROXY"), ("http", "all_proxy"),
            ("https", "ALL_PROXY"),
        ] {
            let refusal = URLSessionConnectionSupport.unsupportedSetting(
                in: direct, for: try Self.head(scheme), environment: [variable: "http://proxy.example:1"])
            #expect(refusal?.setting == .proxy, "\(scheme) \(variable)")
            #expect(refusal?.description.contains(variable) == true, "\(refusal.map(String.init(describing:)) ?? "")")
        }
        #expect(
            URLSessionConnectionSupport.unsupportedSetting(
                in: direct, for: try Self.head("http"), environment: ["https_proxy": "http://p:1"]) == nil)
    }

    @Test("a refused request never reaches the server, through the engine or sent directly, and is not retried")
    func nothingSent() async throws {
        let server = try LoopbackServer { _ in .text("should not be reached") }
        defer { server.stop() }
        let transport = URLSessionTransport()
        var configuration = RequestExecutor.Configuration()
        configuration.connection.tls.pins = [
            try CertificatePin(host: "127.0.0.1", sha256: Self.pin.sha256)
        ]
        configuration.defaultRetryPolicy = RetryPolicy(maxRetryCount: 2, delay: 0)
        struct Get: Endpoint {
            typealias Response = Data
            var path: String { "/pinned" }
            var method: HTTPMethod { .get }
        }
        let executor = RequestExecutor(transport: transport, configuration: configuration)
        // https to a plain server: had anything gone out, the server would have seen a connection.
        let error = try await #require(throws: UnsupportedConnectionSettingError.self) {
            _ = try await executor.send(Get(), baseURL: URL(string: "https://127.0.0.1:\(server.port)")!)
        }
        #expect(error.setting == .certificatePins)

        var direct = TransportRequest(head: try HTTPRequestHead(url: server.baseURL.appending(path: "direct")))
        direct.connection = ConnectionSettings(httpVersion: .http1Only)
        await #expect(throws: UnsupportedConnectionSettingError.self) { _ = try await transport.send(direct) }
        #expect(server.acceptedConnections == 0)
    }
    #endif

    @Test("the transport's defaults are never refused, and the response's version is unknown on Linux")
    func defaultsPass() async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.stop() }
        let transport = URLSessionTransport()
        #expect(
            transport.unsupportedSetting(
                in: ConnectionSettings(), for: try HTTPRequestHead(url: server.baseURL)) == nil)
        let response = try await transport.send(TransportRequest(head: try HTTPRequestHead(url: server.baseURL)))
        #if canImport(FoundationNetworking)
        #expect(response.protocolVersion == nil)
        #endif
        _ = try await response.body.collect(upTo: 1 << 10)
    }
}
