#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore
import Testing

/// Proxy URLs read into settings, explicit settings routed, and passwords kept out of every printed form.
@Suite("Proxy settings")
struct ProxySettingsTests {
    @Test(
        "proxy URLs read as Go reads HTTP_PROXY values",
        arguments: [
            ("http://proxy.example:3128", ProxySettings.http(ProxyServer(host: "proxy.example", port: 3128))),
            ("proxy.example:3128", .http(ProxyServer(host: "proxy.example", port: 3128))),
            ("proxy.example", .http(ProxyServer(host: "proxy.example", port: 80))),
            ("HTTP://proxy.example/ignored/path?q#f", .http(ProxyServer(host: "proxy.example", port: 80))),
            (" http://proxy.example:3128\n", .http(ProxyServer(host: "proxy.example", port: 3128))),
            ("http://proxy.example:", .http(ProxyServer(host: "proxy.example", port: 80))),
            ("socks5://10.0.0.1", .socks5(ProxyServer(host: "10.0.0.1", port: 1080))),
            ("socks5h://gate.example:9050", .socks5(ProxyServer(host: "gate.example", port: 9050))),
            ("http://[::1]:8888", .http(ProxyServer(host: "::1", port: 8888))),
            ("http://[fe80::1%25eth0]:8888", .http(ProxyServer(host: "fe80::1%eth0", port: 8888))),
            (
                "http://Aladdin:open%20sesame@proxy.example:3128",
                .http(
                    ProxyServer(
                        host: "proxy.example", port: 3128,
                        credentials: ProxyCredentials(username: "Aladdin", password: "open sesame")))
            ),
            (
                "socks5://user@proxy.example",
                .socks5(
                    ProxyServer(
                        host: "proxy.example", port: 1080, credentials: ProxyCredentials(username: "user", password: "")
                    ))
            ),
            (
                "http://a:b@c@proxy.example",
                .http(
                    ProxyServer(
                        host: "proxy.example", port: 80, credentials: ProxyCredentials(username: "a", password: "b@c")))
            ),
            ("http://@proxy.example", .http(ProxyServer(host: "proxy.example", port: 80))),
        ])
    func reads(_ text: String, _ expected: ProxySettings) throws {
        #expect(try ProxyServer.settings(fromURL: text) == expected, "\(text)")
    }

    @Test(
        "values that are not a proxy NetKit can use are refused, naming the setting",
        arguments: [
            ("https://proxy.example:3128", "TLS"),
            ("ftp://proxy.example", "scheme \"ftp\""),
            ("", "empty"),
            ("http://", "no host"),
            ("http://:3128", "no host"),
            ("http://proxy.example:0", "1 to 65535"),
            ("http://proxy.example:65536", "1 to 65535"),
            ("http://proxy.example:80x", "1 to 65535"),
            ("http://[not-ipv6]:80", "IPv6"),
            ("http://[::1]x", "port"),
            ("http://proxy example", "host"),
            ("http://us er:pw@proxy.example", "percent-encoded"),
            ("http://user:%zz@proxy.example", "percent-encoded"),
            ("::1", "host"),
        ])
    func refuses(_ text: String, _ reasonPart: String) {
        let error = #expect(throws: ConnectionSettingError.self, "\(text)") { try ProxyServer.settings(fromURL: text) }
        #expect(error?.setting == "proxy URL", "\(text)")
        #expect(error?.reason.contains(reasonPart) == true, "\(text): \(String(describing: error))")
    }

    @Test("Proxy-Authorization is Basic and the Base64 of user:password (RFC 7617's example)")
    func basicAuthorization() {
        let credentials = ProxyCredentials(username: "Aladdin", password: "open sesame")
        #expect(credentials.basicAuthorization == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(ProxyCredentials(username: "é", password: "").basicAuthorization == "Basic w6k6")
    }

    @Test("descriptions, reflections and dumps name the user, never the password")
    func redaction() throws {
        let settings = try ProxyServer.settings(fromURL: "http://alice:pw-s3cr3t@proxy.example:3128")
        guard case .http(let server) = settings else {
            Issue.record("not an HTTP proxy: \(settings)")
            return
        }
        let credentials = try #require(server.credentials)
        #expect(credentials.password == "pw-s3cr3t")
        #expect(server.description == "proxy.example:3128 (user alice)")
        #expect(credentials.description == "alice:REDACTED")
        #expect(ProxyServer(host: "2001:db8::1", port: 1080).description == "[2001:db8::1]:1080")
        for value in [settings as Any, server, credentials] {
            for text in [String(describing: value), String(reflecting: value), Self.dumped(value)] {
                #expect(!text.contains("s3cr3t"), "\(text)")
                #expect(text.contains("alice"), "\(text)")
            }
        }
        #expect(Self.dumped(server).contains("proxy.example"))
    }

    @Test("explicit settings route every URL the same way, localhost included; .environment resolves")
    func route() throws {
        let local = try #require(URL(string: "http://localhost:8080/"))
        let remote = try #require(URL(string: "https://api.example.com/"))
        let proxy = ProxySettings.http(ProxyServer(host: "proxy.example", port: 3128))
        let socks = ProxySettings.socks5(ProxyServer(host: "gate.example", port: 1080))
        for url in [local, remote] {
            #expect(try ProxySettings.direct.route(for: url) == .direct)
            #expect(try proxy.route(for: url) == proxy)
            #expect(try socks.route(for: url) == socks)
        }
        let environment = ProxySettings.environment(ProxyEnvironment(httpsProxy: "socks5://gate.example"))
        #expect(try environment.route(for: remote) == socks)
        #expect(try environment.route(for: local) == .direct)
        guard case .environment = ProxySettings.fromEnvironment() else {
            Issue.record("fromEnvironment() is not .environment")
            return
        }
    }

    /// What `dump` writes for `value`.
    static func dumped(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
