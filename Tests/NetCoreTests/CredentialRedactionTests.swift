import Foundation
import Testing
import NetCore

/// What a request declares as a credential (``CredentialFields``) and what a response carries as one are hidden
/// in cURL lines, error descriptions and `dump`, whatever the field is called.
@Suite("Redaction of declared credentials")
struct CredentialRedactionTests {
    static let secrets = ["fk-s3cr3t", "tok-s3cr3t", "c-s3cr3t", "sid-s3cr3t", "ai-s3cr3t", "pw-s3cr3t"]

    /// A request with a credential in a header whose name does not look secret and in a query item whose name does
    /// not either, both declared, and a bearer token.
    static func request() throws -> TransportRequest {
        let url = try #require(URL(string: "https://fn.test/api/run?page=2&code=c-s3cr3t"))
        var request = TransportRequest(head: try HTTPRequestHead(method: .post, url: url))
        try request.setHeader("X-Functions-Key", "fk-s3cr3t")
        try request.setHeader("Authorization", "Bearer tok-s3cr3t")
        try request.setHeader("Accept", "application/json")
        request.credentialFields.formUnion(CredentialFields(headerNames: ["x-functions-key"], queryItemNames: ["code"]))
        return request
    }

    /// What `dump` writes for `value`.
    static func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }

    static func expectNoSecret(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in secrets {
            #expect(!text.contains(secret), "\(secret) shown in:\n\(text)", sourceLocation: sourceLocation)
        }
    }

    @Test("a cURL line hides a declared header and query item, even where the rules would show that query name")
    func curlHidesDeclaredFields() throws {
        let rules = RedactionRules(queryValues: .named([]))
        let line = CURLCommand.render(try Self.request(), rules: rules)
        Self.expectNoSecret(line)
        #expect(line.contains("-H 'X-Functions-Key: <redacted>'"))
        #expect(line.contains("'https://fn.test/api/run?page=2&code=…'"))
        #expect(line.contains("-H 'Accept: application/json'"))
    }

    @Test("the loudly named switch still writes every declared credential as sent")
    func curlUnredacted() throws {
        let line = CURLCommand.render(try Self.request(), secrets: .unredactedDoNotUseInProduction)
        #expect(line.contains("-H 'X-Functions-Key: fk-s3cr3t'"))
        #expect(line.contains("code=c-s3cr3t"))
        #expect(line.contains("-H 'Authorization: Bearer tok-s3cr3t'"))
    }

    @Test("dump of a TransportRequest shows no declared credential, header or query item")
    func dumpRequest() throws {
        let text = Self.dumped(try Self.request())
        Self.expectNoSecret(text)
        #expect(text.contains("X-Functions-Key"), "names stay: \(text)")
        #expect(text.contains("fn.test"))
    }

    /// A response that sets a cookie and answers with credentials, whose body holds a token.
    static func responseHead() throws -> HTTPResponseHead {
        try HTTPResponseHead(
            statusCode: 401,
            headerFields: HTTPHeaderFields([
                (name: "Set-Cookie", value: "sid=sid-s3cr3t; Path=/"),
                (name: "Set-Cookie2", value: "sid=sid-s3cr3t"),
                (name: "Authentication-Info", value: "nextnonce=ai-s3cr3t"),
                (name: "Proxy-Authentication-Info", value: "nextnonce=ai-s3cr3t"),
                (name: "Content-Type", value: "application/json"),
            ]))
    }

    static let body = Data(#"{"error":"expired","access_token":"tok-s3cr3t"}"#.utf8)

    @Test("dump of a ReceivedResponse shows no response credential, and no request header it remembers")
    func dumpReceivedResponse() throws {
        // Answered from the request's own URL, which the response keeps as the request's head, headers included.
        let response = ReceivedResponse(
            head: try Self.responseHead(), body: Self.body, isBodyTruncated: false, url: nil,
            request: try Self.request().head)
        let text = Self.dumped(response)
        Self.expectNoSecret(text)
        #expect(text.contains("Set-Cookie"))
        #expect(text.contains("application/json"))
        #expect(text.contains("https://fn.test/api/run?page=…&code=…"), "the URL, query values hidden: \(text)")
        let decoded = NetworkResponse(
            value: 1, received: response, origin: ResponseOrigin(redirectedTo: nil, request: try Self.request().head),
            metrics: RequestMetrics(start: .now))
        Self.expectNoSecret(Self.dumped(decoded))
    }

    @Test("dump and description of an HTTPError show no Set-Cookie, Authentication-Info or body token")
    func dumpHTTPError() throws {
        let head = try Self.responseHead()
        let error = HTTPError(statusCode: 401, data: Self.body, headers: head.headers)
        let text = Self.dumped(error)
        Self.expectNoSecret(text)
        Self.expectNoSecret(String(describing: error))
        Self.expectNoSecret(String(reflecting: error))
        #expect(text.contains("401"))
        #expect(text.contains("Content-Type"))
    }

    @Test("dump of a ServerError shows no header credential")
    func dumpServerError() throws {
        struct APIError: Error { let message: String }
        let error = ServerError(
            statusCode: 403, model: APIError(message: "pw-s3cr3t"), headers: try Self.responseHead().headers)
        Self.expectNoSecret(Self.dumped(error))
    }

    @Test("dump of a header field, a set of fields and a request head hides credentials by name")
    func dumpFields() throws {
        let field = try HTTPHeaderField(name: "Authorization", value: "Bearer tok-s3cr3t")
        Self.expectNoSecret(Self.dumped(field))
        Self.expectNoSecret(Self.dumped(try Self.responseHead().headerFields))
        let head = try HTTPRequestHead(
            url: try #require(URL(string: "https://fn.test/a?code=c-s3cr3t")),
            headerFields: HTTPHeaderFields([(name: "Cookie", value: "sid=sid-s3cr3t")]))
        Self.expectNoSecret(Self.dumped(head))
    }
}
