import Foundation
import Testing
import NetCore

@Suite("Log redaction")
struct LogRedactionTests {
    @Test("a URL keeps scheme, host, port, path and query names; values, user and password are hidden")
    func url() throws {
        let url = try #require(
            URL(string: "https://ann:pw@api.example.com:8443/v1/search?q=a%20b&access_token=s3cr3t&flag"))
        let rendered = LogRedaction.url(url)
        #expect(rendered == "https://api.example.com:8443/v1/search?q=…&access_token=…&flag")
        #expect(!rendered.contains("s3cr3t"))
        #expect(!rendered.contains("pw"))
        #expect(LogRedaction.url(nil) == "-")
    }

    @Test(
        "every kind of query renders without trapping",
        arguments: [
            "http://h/p?a=1", "http://h/p?", "http://h/p?=x", "http://h/p?a=%FF%FE", "http://h/p?%E2%80%A6=%E2%80%A6&&",
            "http://h/p?a=1#frag",
        ])
    func queries(text: String) throws {
        let url = try #require(URL(string: text))
        #expect(LogRedaction.url(url).hasPrefix("http://h/p"))
    }

    @Test("errors are described without URLs or secrets")
    func errors() throws {
        /// Another library's error whose own text carries the whole URL, as URLSession's does.
        struct LeakyError: TransportErrorConvertible, CustomStringConvertible {
            var description: String { "failed: https://api.example.com/x?token=s3cr3t" }
            var transportError: TransportError {
                TransportError(.timedOut, host: "api.example.com", detail: "code -1001")
            }
        }
        #expect(
            LogRedaction.describe(LeakyError())
                == "LeakyError: Timed out: api.example.com (code -1001). The server at api.example.com did not answer "
                + "in time: check that it is up, or give the request a longer timeout or idleTimeout")
        #expect(
            LogRedaction.describe(TransportError(.cannotConnect, host: "h.test"))
                == "TransportError.cannotConnect: Could not connect: h.test. Is a server running and listening on "
                + "h.test? Nothing accepted the connection there")
        #expect(LogRedaction.describe(CancellationError()) == "cancelled")
        #expect(
            LogRedaction.describe(NetworkError.invalidURL) == "NetworkError: \(NetworkError.invalidURL.description)")
        let http = HTTPError(
            statusCode: 400, data: Data(#"{"error":"bad","refresh_token":"s3cr3t"}"#.utf8),
            headers: ["Set-Cookie": "id=s3cr3t"])
        #expect(!LogRedaction.describe(http).contains("s3cr3t"))
        #expect(LogRedaction.describe(http).hasPrefix("HTTP 400"))
    }

    @Test("secret-looking body fields are hidden, in JSON and in forms")
    func bodies() {
        let json = Data(
            #"{"access_token": "abc.def", "expires_in": 3600, "password":12345, "user": {"name":"ann"}}"#.utf8)
        let rendered = LogRedaction.bodyPrefix(json)
        #expect(
            rendered
                == #"{"access_token": "<redacted>", "expires_in": 3600, "password":<redacted>, "user": {"name":"ann"}}"#
        )
        #expect(
            LogRedaction.bodyPrefix(Data("grant_type=password&client_secret=xyz&user=ann".utf8))
                == "grant_type=password&client_secret=<redacted>&user=ann")
        #expect(LogRedaction.bodyPrefix(Data([0, 1, 2, 0xFF])) == "<4 bytes of binary data>")
        #expect(LogRedaction.bodyPrefix(Data(String(repeating: "x", count: 300).utf8)).count == 201)
    }

    @Test(
        "header redaction hides every credential header",
        arguments: ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Session-Id"])
    func headers(name: String) {
        #expect(HeaderRedaction.redact(name: name, value: "v") == "<redacted>")
    }

    @Test("a header field that carries a URL shows it with its query values hidden: Location, Referer, each Link")
    func urlFields() {
        let location = HTTPHeaderField(uncheckedName: "Location", value: "/files/1?X-Amz-Signature=s3cr3t-1&part=2#top")
        #expect(location.description == "Location: /files/1?X-Amz-Signature=…&part=…#top")
        #expect(String(reflecting: location).contains("s3cr3t") == false)
        let referer = HTTPHeaderField(uncheckedName: "referer", value: "https://a.test/login?access_token=s3cr3t-2")
        #expect(referer.description == "referer: https://a.test/login?access_token=…")
        let link = HTTPHeaderField(
            uncheckedName: "Link", value: #"<https://a.test/p?page=2&sig=s3cr3t-3>; rel="next", </p>; rel="first""#)
        #expect(link.description == #"Link: <https://a.test/p?page=…&sig=…>; rel="next", </p>; rel="first""#)
        #expect(HTTPHeaderField(uncheckedName: "Accept", value: "a?b=c").description == "Accept: a?b=c")
        let error = HTTPError(
            statusCode: 302, data: Data(),
            headers: ["Content-Location": "/r?token=s3cr3t-4", "Refresh": "0; url=/n?k=s3cr3t-5"])
        var dumped = ""
        dump(error, to: &dumped)
        #expect(!dumped.contains("s3cr3t"), "\(dumped)")
        #expect(dumped.contains("Content-Location: /r?token=…"), "\(dumped)")
    }

    @Test("HTTPError: EKNetwork's errorDescription, a readable description with a redacted body prefix")
    func httpError() {
        let error = HTTPError(statusCode: 404, data: Data(#"{"error": "todo 42 does not exist"}"#.utf8), headers: [:])
        #expect(error.errorDescription == "Request failed with status code 404")
        #expect(error.localizedDescription == "Request failed with status code 404")
        #expect(String(describing: error) == #"HTTP 404: {"error": "todo 42 does not exist"}"#)
        let truncated = HTTPError(statusCode: 503, data: Data("busy".utf8), headers: [:], isTruncated: true)
        #expect("\(truncated)" == "HTTP 503: busy (truncated)")
        #expect("\(HTTPError(statusCode: 500, data: Data(), headers: [:]))" == "HTTP 500")
    }

    @Test(
        "NetworkError reads as a sentence through localizedDescription",
        arguments: [
            NetworkError.invalidURL, .invalidMultipartEncoding, .emptyResponse, .unauthorized, .invalidResponse,
            .conflictingBodyTypes, .invalidHeader(name: "X\r\nY"), .responseTooLarge(limitBytes: 10),
            .uploadStreamConsumed, .invalidPath(path: "/a/../b", rule: .dotSegment),
            .invalidBaseURL(url: "localhost:8080", rule: .noScheme),
        ])
    func networkError(error: NetworkError) {
        #expect(error.localizedDescription == error.description)
        #expect(!error.localizedDescription.contains("NetCore.NetworkError"))
        #expect(!error.localizedDescription.contains("\r"))
    }

    @Test("standard-error lines never show the placeholder subsystem; a real one is kept")
    func subsystem() {
        let placeholder = NetworkLogger(subsystem: NetworkLogger.placeholderSubsystem, minimumLevel: .debug)
        #expect(placeholder.standardErrorLine(.error, "boom") == "[NetKit:network] error: boom\n")
        let own = NetworkLogger(subsystem: "com.example.app", minimumLevel: .debug)
        #expect(own.standardErrorLine(.debug, "hi") == "[com.example.app:network] debug: hi\n")
    }
}

@Suite("Key headers look secret")
struct KeyHeaderNameTests {
    @Test(
        "a header named like a key is hidden without being declared; the idempotency key is not",
        arguments: ["X-Functions-Key", "Ocp-Apim-Subscription-Key", "x-master-key", "key", "X_Client_Key"])
    func keys(_ name: String) {
        #expect(LogRedaction.isSecretName(name), "\(name)")
    }

    @Test(
        "names that only contain the letters are shown",
        arguments: ["Idempotency-Key", "Keep-Alive", "X-Keyboard", "Monkey"])
    func notKeys(_ name: String) {
        #expect(!LogRedaction.isSecretName(name), "\(name)")
    }

    /// The rule as text (Unicode lowercasing, Foundation's substring search): what the byte reading of ASCII names
    /// must agree with.
    static func referenceIsSecret(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if HeaderRedaction.sensitiveNames.contains(lowered) { return true }
        if LogRedaction.secretNameFragments.contains(where: { lowered.contains($0) }) { return true }
        return (lowered == "key" || lowered.hasSuffix("-key") || lowered.hasSuffix("_key"))
            && lowered != "idempotency-key"
    }

    @Test("names read as bytes are judged as the text rule judges them, for every mix of case and fragment")
    func bytesAgreeWithText() {
        var names = [
            "X-Auth-Token", "SESSIONID", "my_Password", "Authorization", "set-cookie2", "X-CSRF-TOKEN", "api-key",
            "x_signature_v2", "Credentials", "X-Session", "Keyboard", "keys", "idempotency-key", "IDEMPOTENCY-KEY",
            "X-Request-ID", "Content-Type", "monkey-key", "", "k", "-key", "_KEY", "passwd1", "apikey", "Api_Key",
            "X-API-\u{212A}EY", "Pässword", "ПАРОЛЬ", "cookie\u{0301}",
        ]
        var generator = SystemRandomNumberGenerator()
        let pieces = ["x-", "Tok", "en", "SECRET", "-", "_", "key", "Key", "api", "sess", "ion", "a", "Z", "9", "ø"]
        for _ in 0..<2_000 {
            names.append((0..<Int.random(in: 1...5, using: &generator)).map { _ in pieces.randomElement()! }.joined())
        }
        for name in names {
            #expect(LogRedaction.isSecretName(name) == Self.referenceIsSecret(name), "\(name)")
        }
    }
}
