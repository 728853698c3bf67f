import Foundation
import NetKitLock
import Testing
import NetKit
import NetKitTesting

@Suite("Logging plugin and cURL rendering")
struct LoggingPluginTests {
    struct SignIn: NetworkRequest {
        typealias Response = User
        var path: String { "/sessions" }
        var method: HTTPMethod { .post }
        var queryParameters: [String: String]? { ["client": "ios", "signature": "query-s3cr3t"] }
        var headers: [String: String]? {
            [
                "Authorization": "Bearer auth-s3cr3t", "Proxy-Authorization": "Basic proxy-s3cr3t",
                "Cookie": "sid=cookie-s3cr3t",
                "X-Signature": "custom-s3cr3t", "X-Trace": "visible-trace",
            ]
        }
        var body: RequestBody? { RequestBody(encodable: ["user": "ann", "password": "body-s3cr3t"]) }
    }

    let secrets = [
        "auth-s3cr3t", "proxy-s3cr3t", "cookie-s3cr3t", "custom-s3cr3t", "body-s3cr3t", "query-s3cr3t",
        "set-cookie-s3cr3t",
    ]

    @Test("log lines and cURL output hide every secret: standard headers, configured names, query values, body fields")
    func redaction() async throws {
        let lines = Lock<[String]>([])
        let logger = NetworkLogger(subsystem: "test", minimumLevel: .debug) { level, line in
            lines.withLock { $0.append("\(level.name): \(line)") }
        }
        let plugin = LoggingPlugin(
            logger: logger, includesCURL: true, rules: RedactionRules(headerNames: ["x-signature"]))
        let stub = StubTransport(replies: [
            .json(#"{"error":"nope"}"#, status: 403, headers: ["Set-Cookie": "sid=set-cookie-s3cr3t"])
        ])
        await #expect(throws: HTTPError.self) {
            try await RequestExecutor(transport: stub, plugins: [plugin]).send(SignIn(), baseURL: stubBase)
        }
        let all = lines.withLock { $0 }
        #expect(all.count == 4, "request, cURL, response, failure: \(all)")
        for line in all {
            for secret in secrets { #expect(!line.contains(secret), "\(line)") }
        }
        let curl = try #require(all.first { $0.contains("curl ") })
        #expect(curl.contains("-X POST 'https://api.test/v1/sessions?client=…&signature=…'"))
        #expect(curl.contains("-H 'Authorization: <redacted>'"))
        #expect(curl.contains("-H 'X-Signature: <redacted>'"))
        #expect(curl.contains("-H 'X-Trace: visible-trace'"))
        #expect(curl.contains(#""password":"<redacted>""#))
        #expect(
            all.contains {
                $0.hasPrefix("debug: ← 403 POST https://api.test/v1/sessions?client=…&signature=… 16 B in ")
            })
        #expect(
            all.last?.hasPrefix(
                "error: POST https://api.test/v1/sessions?client=…&signature=… failed after 1 attempt(s)") == true)
    }

    @Test("query rules can show ordinary values and still hide secret-looking ones")
    func namedQueryRules() throws {
        let url = try #require(URL(string: "https://x.test/a?page=2&token=t0k&sort=name"))
        #expect(
            LogRedaction.url(url, rules: RedactionRules(queryValues: .named(["sort"])))
                == "https://x.test/a?page=2&token=…&sort=…")
    }

    @Test("cURL quoting survives quotes and describes bodies it does not print")
    func curlQuoting() throws {
        var request = TransportRequest(
            head: try HTTPRequestHead(method: .put, url: URL(string: "https://x.test/it's")!),
            body: UploadSource(data: Data([0xFF, 0x00]))
        )
        try request.setHeader("X-Note", "it's")
        let rendered = CURLCommand.render(request)
        #expect(
            rendered
                == #"curl -X PUT 'https://x.test/it'\''s' -H 'X-Note: it'\''s' --data-binary '<2 bytes of binary data>'"#
        )
        let big = TransportRequest(
            head: try HTTPRequestHead(url: URL(string: "https://x.test")!), body: UploadSource(data: Data(count: 5000)))
        #expect(CURLCommand.render(big).hasSuffix("--data-binary '<5000 bytes, not shown>'"))
    }
}
