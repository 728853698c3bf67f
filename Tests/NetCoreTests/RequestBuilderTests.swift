import Foundation
import Testing
import NetCore

@Suite("Request building")
struct RequestBuilderTests {
    let base = URL(string: "https://api.example.com")!
    let builder = RequestBuilder(userAgent: "Test/1.0")

    func bodyText(_ body: UploadSource?) -> String? {
        body?.inMemoryData.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test(
        "CR/LF in a request header is rejected", arguments: [["X-A": "1\r\nX-B: 2"], ["X-A\r\n": "1"], ["X-A": "\n"]])
    func headerInjection(headers: [String: String]) {
        #expect(throws: NetworkError.self) {
            try builder.makeRequest(ConfigurableRequest(headers: headers), baseURL: base)
        }
    }

    @Test("an encodable body is JSON with the body's content type")
    func encodableBody() throws {
        let request = ConfigurableRequest(body: RequestBody(encodable: Item(id: 1, name: "a")))
        let built = try builder.makeRequest(request, baseURL: base)
        #expect(built.value(forHeader: "Content-Type") == "application/json")
        let data = try #require(built.body?.inMemoryData)
        #expect(try JSONDecoder().decode(Item.self, from: data) == Item(id: 1, name: "a"))
        #expect(built.method == .post)
    }

    @Test("a form body is encoded and typed")
    func formBody() throws {
        let built = try builder.makeRequest(
            ConfigurableRequest(body: RequestBody(formURLEncoded: ["q": "a b", "n": "1+1"])), baseURL: base)
        #expect(built.value(forHeader: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(bodyText(built.body) == "n=1%2B1&q=a%20b")
    }

    @Test("request headers override defaults; the user agent is added unless set")
    func headerPrecedence() throws {
        let custom = try builder.makeRequest(
            ConfigurableRequest(headers: ["content-type": "text/csv", "user-agent": "Mine"]), baseURL: base)
        #expect(custom.value(forHeader: "Content-Type") == "text/csv")
        #expect(custom.value(forHeader: "User-Agent") == "Mine")
        let plain = try builder.makeRequest(ConfigurableRequest(), baseURL: base)
        #expect(plain.value(forHeader: "User-Agent") == "Test/1.0")
        #expect(plain.value(forHeader: "Content-Type") == "application/json")
    }

    @Test("a header named again in another case replaces the value, once")
    func headerCaseMerge() throws {
        let built = try builder.makeRequest(
            ConfigurableRequest(headers: ["content-type": "text/csv", "ACCEPT": "text/plain"]), baseURL: base)
        #expect(
            built.head.headerFields.count == 3,
            "Content-Type, Accept and User-Agent, each once: \(built.head.headerFields)")
        #expect(built.value(forHeader: "content-type") == "text/csv")
        #expect(built.value(forHeader: "accept") == "text/plain")
    }

    @Test("headerFields send a name twice and replace the same name from headers and the defaults")
    func repeatedFields() throws {
        var request = ConfigurableRequest(headers: ["X-Tag": "from-headers"])
        request.headerFields = try HTTPHeaderFields([("X-Tag", "a"), ("x-tag", "b"), ("Accept", "text/csv")])
        let built = try builder.makeRequest(request, baseURL: base)
        #expect(built.head.headerFields.values(for: "X-Tag") == ["a", "b"])
        #expect(built.head.headerFields.values(for: "Accept") == ["text/csv"])
        #expect(built.value(forHeader: "x-tag") == "a, b")
    }

    @Test("framing headers in headerFields are checked as those in headers are")
    func framingHeaders() throws {
        let body = RequestBody(data: Data("abc".utf8), contentType: "text/plain")
        var wrongLength = ConfigurableRequest(body: body)
        wrongLength.headerFields = try HTTPHeaderFields([("Content-Length", "4")])
        #expect(throws: NetworkError.invalidHeader(name: "Content-Length")) {
            try builder.makeRequest(wrongLength, baseURL: base)
        }
        var chunked = ConfigurableRequest(body: body)
        chunked.headerFields = try HTTPHeaderFields([("Transfer-Encoding", "chunked")])
        #expect(throws: NetworkError.self) { try builder.makeRequest(chunked, baseURL: base) }
    }

    @Test("a stream body cannot be replayed; data bodies can")
    func replayability() throws {
        let stream = try builder.makeRequest(
            ConfigurableRequest(
                body: RequestBody(stream: InputStream(data: Data("abc".utf8)), length: 3, contentType: "text/plain")),
            baseURL: base)
        #expect(!stream.isReplayable)
        #expect(stream.bodyLength == 3)
        let data = try builder.makeRequest(
            ConfigurableRequest(body: RequestBody(data: Data("abc".utf8), contentType: "text/plain")), baseURL: base)
        #expect(data.isReplayable)
    }

    @Test("all nine methods are sent by name")
    func methods() throws {
        for method in HTTPMethod.allCases {
            let built = try builder.makeRequest(ConfigurableRequest(method: method), baseURL: base)
            #expect(built.method == HTTPRequestMethod(method))
            #expect(built.head.method.rawValue == method.rawValue)
        }
        #expect(HTTPMethod.allCases.count == 9)
    }
}
