#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore
import Testing

/// One row of the table: the variables a process has, the URL of a request, and which proxy it goes through.
struct ProxyCase: Sendable, CustomTestStringConvertible {
    /// What ``ProxyEnvironment/proxy(for:)`` gives: a proxy, a direct connection, or an error naming a variable.
    enum Outcome: Sendable, Equatable {
        case direct
        case proxy(ProxySettings)
        case invalid(setting: String)
    }

    let note: String
    let variables: [String: String]
    let url: String
    let expected: Outcome

    /// The inputs, for failure messages: `HTTP_PROXY="proxy" NO_PROXY="example.com" → http://example.com/`.
    var inputs: String {
        let variables = variables.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }
        return (variables.isEmpty ? "(no variables)" : variables.joined(separator: " ")) + " → \(url)"
    }

    var testDescription: String { "\(note): \(inputs)" }
}

/// `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` read as Go reads them.
///
/// The expected results are those of Go's `golang.org/x/net/http/httpproxy` (`proxy.go`), taken from its own test
/// table (`proxy_test.go`: `proxyForURLTests`, `UseProxyTests` with its `noProxy` list, `TestAllNoProxy`,
/// `TestInvalidNoProxy`) and, for the rows added here, worked out from `proxy.go` itself. Where NetKit departs from Go
/// on purpose, the row says so: an `https://` or unknown-scheme proxy is an error rather than used (Go) or dropped
/// silently (Go, for values it cannot parse); a CGI process's `HTTP_PROXY` is ignored rather than failing the request;
/// `LOCALHOST` is `localhost`.
@Suite("Proxy environment (Go's httpproxy rules)")
struct ProxyEnvironmentTests {
    static func http(_ host: String, _ port: Int, _ credentials: ProxyCredentials? = nil) -> ProxyCase.Outcome {
        .proxy(.http(ProxyServer(host: host, port: port, credentials: credentials)))
    }

    static func socks5(_ host: String, _ port: Int) -> ProxyCase.Outcome {
        .proxy(.socks5(ProxyServer(host: host, port: port)))
    }

    /// A row with the upper-case variables that are not `nil`.
    static func row(
        _ note: String, http: String? = nil, https: String? = nil, no: String? = nil,
        _ url: String, _ expected: ProxyCase.Outcome
    ) -> ProxyCase {
        var variables: [String: String] = [:]
        variables["HTTP_PROXY"] = http
        variables["HTTPS_PROXY"] = https
        variables["NO_PROXY"] = no
        return ProxyCase(note: note, variables: variables, url: url, expected: expected)
    }

    static func row(
        _ note: String, variables: [String: String], _ url: String, _ expected: ProxyCase.Outcome
    ) -> ProxyCase {
        ProxyCase(note: note, variables: variables, url: url, expected: expected)
    }

    /// The request of Go's rows that give none.
    static let goURL = "http://example.com"

    /// Go's `proxyForURLTests`, row for row.
    static let goProxyForURL: [ProxyCase] = [
        row("IPv4 and port, http assumed", http: "127.0.0.1:8080", Self.goURL, http("127.0.0.1", 8080)),
        row(
            "name and port, http assumed", http: "cache.corp.example.com:1234", Self.goURL,
            http("cache.corp.example.com", 1234)),
        row("name alone, port 80", http: "cache.corp.example.com", Self.goURL, http("cache.corp.example.com", 80)),
        row("a single label is a host, not a scheme", http: "localhost", Self.goURL, http("localhost", 80)),
        // Go uses an https:// proxy; NetKit does not speak TLS to proxies and says so.
        row(
            "https:// proxy refused", http: "https://cache.corp.example.com", Self.goURL,
            .invalid(setting: "HTTP_PROXY")),
        row("http:// with a port", http: "http://127.0.0.1:8080", Self.goURL, http("127.0.0.1", 8080)),
        row(
            "https:// proxy with a port refused", http: "https://127.0.0.1:8080", Self.goURL,
            .invalid(setting: "HTTP_PROXY")),
        row("socks5, port 1080", http: "socks5://127.0.0.1", Self.goURL, socks5("127.0.0.1", 1080)),
        // Go passes an unknown scheme on (and net/http then fails the request); NetKit fails it here.
        row("unknown scheme", http: "foo://host", Self.goURL, .invalid(setting: "HTTP_PROXY")),
        row(
            "http URL uses HTTP_PROXY", http: "http.proxy.tld", https: "secure.proxy.tld", "http://insecure.tld/",
            http("http.proxy.tld", 80)),
        row(
            "https URL uses HTTPS_PROXY", http: "http.proxy.tld", https: "secure.proxy.tld", "https://secure.tld/",
            http("secure.proxy.tld", 80)),
        row(
            "https:// HTTPS_PROXY refused", http: "http.proxy.tld", https: "https://secure.proxy.tld",
            "https://secure.tld/", .invalid(setting: "HTTPS_PROXY")),
        row("https URL never falls back to HTTP_PROXY", http: "http.proxy.tld", "https://secure.tld/", .direct),
        row("ftp uses no proxy", http: "http.proxy.tld", "ftp://insecure.tld/", .direct),
        // Go fails the request ("refusing to use HTTP_PROXY value in CGI environment"); NetKit ignores the value.
        row(
            "CGI: HTTP_PROXY ignored", variables: ["HTTP_PROXY": "http://10.1.2.3:8080", "REQUEST_METHOD": "GET"],
            "http://example.com", .direct),
        row(
            "CGI: HTTPS_PROXY still used",
            variables: ["HTTPS_PROXY": "http://secure.proxy.tld", "REQUEST_METHOD": "GET"],
            "https://secure.tld/", http("secure.proxy.tld", 80)),
        row("nothing set", Self.goURL, .direct),
        row("NO_PROXY name matches itself", http: "proxy", no: "example.com", "http://example.com/", .direct),
        row(
            "NO_PROXY .name: sub-domains only", http: "proxy", no: ".example.com", "http://example.com/",
            http("proxy", 80)),
        row("NO_PROXY is not a plain suffix", http: "proxy", no: "ample.com", "http://example.com/", http("proxy", 80)),
        row("NO_PROXY name matches sub-domains", http: "proxy", no: "example.com", "http://foo.example.com/", .direct),
        row("NO_PROXY other domain", http: "proxy", no: ".foo.com", "http://example.com/", http("proxy", 80)),
        row("IDN entry and IDN host", http: "proxy", no: ".示例.com", "http://www.示例.com", .direct),
        row("A-label entry, IDN host", http: "proxy", no: "xn--fsq092h.com", "http://www.示例.com", .direct),
        row("IDN entry, A-label host", http: "proxy", no: "示例.com", "http://www.xn--fsq092h.com", .direct),
        row(
            "an IPv6 zone is not a name", http: "proxy", no: "example.com", "http://[1000::%25.example.com]:123",
            http("proxy", 80)),
    ]

    /// Go's `noProxy` list of `TestUseProxy`.
    static let goNoProxy =
        "foobar.com, .barbaz.net, *.wildcard.io, 192.168.1.1, 192.168.1.2:81, 192.168.1.3:80, 10.0.0.0/30, "
        + "2001:db8::52:0:1, [2001:db8::52:0:2]:443, [2001:db8::52:0:3]:80, 2002:db8:a::45/64"

    /// Go's `UseProxyTests` (each host on port 80) against that list: `true` uses the proxy.
    static let goUseProxyHosts: [(host: String, proxied: Bool)] = [
        ("localhost", false), ("127.0.0.1", false), ("127.0.0.2", false), ("[::1]", false), ("[::2]", true),
        ("192.168.1.1", false), ("192.168.1.2", true), ("192.168.1.3", false), ("192.168.1.4", true),
        ("10.0.0.2", false), ("[2001:db8::52:0:1]", false), ("[2001:db8::52:0:2]", true),
        ("[2001:db8::52:0:3]", false), ("[2002:db8:a::123]", false), ("[fe80::424b:c8be:1643:a1b6]", true),
        ("barbaz.net", true), ("www.barbaz.net", false), ("foobar.com", false), ("www.foobar.com", false),
        ("foofoobar.com", true), ("baz.com", true), ("localhost.net", true), ("local.localhost", true),
        ("barbarbaz.net", true), ("wildcard.io", true), ("nested.wildcard.io", false), ("awildcard.io", true),
    ]

    static let goUseProxy: [ProxyCase] = goUseProxyHosts.map { host, proxied in
        row(
            "Go's useProxy list", http: "proxy", no: goNoProxy, "http://\(host):80/",
            proxied ? http("proxy", 80) : .direct)
    }

    /// `TestAllNoProxy` (a sample: every host goes direct) and `TestInvalidNoProxy`.
    static let goAllAndInvalid: [ProxyCase] = [
        row("* exempts everything", http: "proxy", no: "*", "http://www.barbaz.net/", .direct),
        row("* exempts addresses", http: "proxy", no: "*", "http://[fe80::424b:c8be:1643:a1b6]/", .direct),
        row("* among other entries", http: "proxy", no: "example.org, *", "http://foo.test:8080/", .direct),
        row("an entry without a host is skipped", http: "proxy", no: ":1", "http://example.com/", http("proxy", 80)),
    ]

    /// Rows worked out from `proxy.go` for what the brief asks to cover beyond Go's table.
    static let more: [ProxyCase] = [
        // Ports: an entry's port must equal the URL's, or the scheme's default.
        row("entry port equals URL port", http: "proxy", no: "example.com:8080", "http://example.com:8080/", .direct),
        row("entry port differs", http: "proxy", no: "example.com:8080", "http://example.com/", http("proxy", 80)),
        row("https default port 443", https: "proxy", no: "example.com:443", "https://example.com/", .direct),
        row("empty entry port is any port", http: "proxy", no: "example.com:", "http://example.com:9/", .direct),
        row("IPv4 entry port", http: "proxy", no: "10.1.2.3:8080", "http://10.1.2.3:8080/x", .direct),
        row("[IPv6]:port entry, https", https: "proxy", no: "[2001:db8::1]:443", "https://[2001:db8::1]/", .direct),
        // Names: case, white space, wildcards, trailing dots (Go compares them as written).
        row("case folded", http: "proxy", no: " EXAMPLE.com ", "http://Foo.Example.COM/", .direct),
        row("empty entries skipped", http: "proxy", no: ",, other.org ,,example.com,", "http://example.com/", .direct),
        row("*. is a leading dot", http: "proxy", no: "*.example.com", "http://a.b.example.com/", .direct),
        row("*. excludes the name", http: "proxy", no: "*.example.com", "http://example.com/", http("proxy", 80)),
        row(
            "* without a dot is literal", http: "proxy", no: "*example.com", "http://www.example.com/",
            http("proxy", 80)),
        row(
            "trailing dot host vs plain entry", http: "proxy", no: "example.com", "http://example.com./",
            http("proxy", 80)),
        row("trailing dot on both", http: "proxy", no: "example.com.", "http://www.example.com./", .direct),
        row(
            "name entry never matches an IP", http: "proxy", no: "example.com", "http://93.184.215.14/",
            http("proxy", 80)),
        // Addresses and ranges.
        row("IPv4 CIDR inside", http: "proxy", no: "10.0.0.0/8", "http://10.200.0.1:8080/", .direct),
        row("IPv4 CIDR outside", http: "proxy", no: "10.0.0.0/8", "http://11.0.0.1/", http("proxy", 80)),
        row("IPv6 CIDR inside", https: "proxy", no: "2001:db8::/32", "https://[2001:db8:1::1]/", .direct),
        row("IPv6 CIDR outside", https: "proxy", no: "2001:db8::/32", "https://[2001:db9::1]/", http("proxy", 80)),
        row("IPv4-mapped host in IPv4 CIDR", http: "proxy", no: "10.0.0.0/8", "http://[::ffff:10.1.2.3]/", .direct),
        row("IPv4-mapped entry equals IPv4 host", http: "proxy", no: "::ffff:10.1.2.3", "http://10.1.2.3/", .direct),
        row(
            "leading zero: a name, not an address", http: "proxy", no: "010.0.0.1", "http://10.0.0.1/",
            http("proxy", 80)),
        row(
            "[IPv6] without a port: a name", http: "proxy", no: "[2001:db8::1]", "http://[2001:db8::1]/",
            http("proxy", 80)),
        // Never proxied.
        row("localhost with a port", http: "proxy", "http://localhost:8080/", .direct),
        row("LOCALHOST (Go: case-sensitive)", http: "proxy", "http://LOCALHOST/", .direct),
        row("127/8", https: "proxy", "https://127.255.255.254/", .direct),
        row("IPv4-mapped loopback", http: "proxy", "http://[::ffff:127.0.0.1]/", .direct),
        row("localhost.localdomain is a name", http: "proxy", "http://localhost.localdomain/", http("proxy", 80)),
        // Schemes of the request.
        row("upper-case request scheme", http: "proxy", "HTTP://example.com/", http("proxy", 80)),
        row("ws uses no proxy", http: "proxy", https: "proxy", "ws://example.com/", .direct),
        // Lower-case spellings and empty values.
        row("http_proxy", variables: ["http_proxy": "lower:1"], "http://example.com/", http("lower", 1)),
        row(
            "HTTP_PROXY wins", variables: ["HTTP_PROXY": "upper:2", "http_proxy": "lower:1"], "http://example.com/",
            http("upper", 2)),
        row(
            "empty HTTP_PROXY falls back", variables: ["HTTP_PROXY": "", "http_proxy": "lower:1"],
            "http://example.com/",
            http("lower", 1)),
        row("https_proxy", variables: ["https_proxy": "lower:1"], "https://example.com/", http("lower", 1)),
        row(
            "no_proxy", variables: ["HTTP_PROXY": "proxy", "NO_PROXY": "", "no_proxy": "example.com"],
            "http://example.com/", .direct),
        row("empty HTTP_PROXY", http: "", "http://example.com/", .direct),
        row("blank HTTP_PROXY", http: "  ", "http://example.com/", .direct),
        row(
            "empty REQUEST_METHOD is not CGI", variables: ["HTTP_PROXY": "proxy", "REQUEST_METHOD": ""],
            "http://example.com/", http("proxy", 80)),
        row(
            "CGI ignores http_proxy too", variables: ["http_proxy": "proxy", "REQUEST_METHOD": "POST"],
            "http://example.com/", .direct),
        // Proxy values.
        row("socks5h is SOCKS5", https: "SOCKS5H://gate:9050", "https://example.com/", socks5("gate", 9050)),
        row("IPv6 proxy", http: "http://[2001:db8::1]:3128/", "http://example.com/", http("2001:db8::1", 3128)),
        row(
            "credentials", http: "http://alice:s%40cr%3At@proxy:3128", "http://example.com/",
            http("proxy", 3128, ProxyCredentials(username: "alice", password: "s@cr:t"))),
        row(
            "credentials, no scheme", http: "bob:pw@proxy", "http://example.com/",
            http("proxy", 80, ProxyCredentials(username: "bob", password: "pw"))),
        row("port out of range", http: "http://proxy:99999", "http://example.com/", .invalid(setting: "HTTP_PROXY")),
        row("port not a number", https: "proxy:abc", "https://example.com/", .invalid(setting: "HTTPS_PROXY")),
        row("no host", http: "http://:3128", "http://example.com/", .invalid(setting: "HTTP_PROXY")),
        row("IPv6 without brackets", http: "2001:db8::1", "http://example.com/", .invalid(setting: "HTTP_PROXY")),
        row(
            "bad HTTPS_PROXY leaves http alone", http: "proxy", https: "ftp://x", "http://example.com/",
            http("proxy", 80)),
        row(
            "bad HTTPS_PROXY unread for NO_PROXY hosts", https: "ftp://x", no: "example.com", "https://example.com/",
            .direct),
    ]

    static let cases = goProxyForURL + goUseProxy + goAllAndInvalid + more

    @Test("each environment and URL gets Go's proxy", arguments: cases)
    func table(_ row: ProxyCase) throws {
        let url = try #require(URL(string: row.url), "\(row.inputs)")
        let environment = ProxyEnvironment(variables: row.variables)
        let outcome: ProxyCase.Outcome
        do {
            outcome = try environment.proxy(for: url).map { .proxy($0) } ?? .direct
        } catch let error as ConnectionSettingError {
            outcome = .invalid(setting: error.setting)
        }
        #expect(outcome == row.expected, "\(row.inputs)")
        // route(for:) says the same, with .direct for nil.
        let settings = ProxySettings.environment(environment)
        switch outcome {
        case .direct: #expect(try settings.route(for: url) == .direct, "route, \(row.inputs)")
        case .proxy(let proxy): #expect(try settings.route(for: url) == proxy, "route, \(row.inputs)")
        case .invalid:
            #expect(throws: ConnectionSettingError.self, "route, \(row.inputs)") { try settings.route(for: url) }
        }
    }

    @Test("the table holds Go's rows and the added ones")
    func tableSize() {
        #expect(Self.cases.count >= 35)
        #expect(Self.goUseProxy.count == 27)
    }

    @Test("variables are picked upper case first, the first non-empty, and HTTP_PROXY dropped under CGI")
    func variables() {
        let environment = ProxyEnvironment(variables: [
            "HTTP_PROXY": "", "http_proxy": "h", "HTTPS_PROXY": "S", "https_proxy": "s", "no_proxy": "n",
        ])
        #expect(environment == ProxyEnvironment(httpProxy: "h", httpsProxy: "S", noProxy: "n"))
        let cgi = ProxyEnvironment(variables: ["HTTP_PROXY": "h", "HTTPS_PROXY": "s", "REQUEST_METHOD": "GET"])
        #expect(cgi == ProxyEnvironment(httpProxy: nil, httpsProxy: "s", noProxy: nil))
        #expect(ProxyEnvironment(variables: [:]) == ProxyEnvironment())
    }

    @Test("an invalid value's error names the variable and never quotes the password")
    func errorNamesVariable() throws {
        let environment = ProxyEnvironment(httpsProxy: "https://alice:pw-s3cr3t@proxy.example:3128")
        let url = try #require(URL(string: "https://example.com/"))
        let error = try #require(throws: ConnectionSettingError.self) { try environment.proxy(for: url) }
        #expect(error.setting == "HTTPS_PROXY")
        #expect(error.reason.contains("TLS"), "\(error)")
        #expect(!error.description.contains("s3cr3t"), "\(error)")
        #expect(error.description.hasPrefix("Invalid HTTPS_PROXY: "), "\(error)")

        let badPort = ProxyEnvironment(httpProxy: "alice:pw-s3cr3t")  // a host "alice" and a "port" that is not one
        let plain = try #require(URL(string: "http://example.com/"))
        let portError = try #require(throws: ConnectionSettingError.self) { try badPort.proxy(for: plain) }
        #expect(portError.setting == "HTTP_PROXY")
        #expect(!portError.description.contains("s3cr3t"), "\(portError)")
    }

    @Test("the environment's description, reflection and dump hide proxy passwords")
    func environmentRedaction() {
        let environment = ProxyEnvironment(
            httpProxy: "http://alice:pw-s3cr3t@proxy.example:3128", httpsProxy: "bob:pw-s3cr3t/x@proxy:1",
            noProxy: "localhost")
        for text in [
            String(describing: environment), String(reflecting: environment), Self.dumped(environment),
            Self.dumped(ProxySettings.environment(environment)),
        ] {
            #expect(!text.contains("s3cr3t"), "\(text)")
            #expect(text.contains("proxy.example:3128"), "\(text)")
        }
        #expect(environment.description.contains("http://alice:REDACTED@proxy.example:3128"), "\(environment)")
    }

    /// What `dump` writes for `value`.
    static func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
