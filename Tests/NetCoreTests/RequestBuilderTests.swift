import Foundation
import Testing
import NetCore
import NetMultipart

@Suite("Request building")
struct RequestBuilderTests {
    let base = URL(string: "https://api.example.com")!
    let builder = RequestBuilder(userAgent: "Test/1.0")

    func bodyText(_ payload: RequestPayload) -> String? {
        guard case .data(let data) = payload else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    @Test("body and multipartData together are rejected before anything is built")
    func conflictingBodies() {
        var form = MultipartFormData()
        form.addPart(name: "f", data: Data("x".utf8), mimeType: "text/plain")
        let request = ConfigurableRequest(body: RequestBody(data: Data(), contentType: "text/plain"), multipartData: form)
        #expect(throws: NetworkError.conflictingBodyTypes) { try builder.makeRequest(request, baseURL: base) }
    }

    @Test("a multipart name with a line break is an encoding error", arguments: ["a\r\nb", "a\nb", "a\u{0}"])
    func invalidMultipart(name: String) {
        var form = MultipartFormData()
        form.addPart(name: name, data: Data("x".utf8), mimeType: "text/plain")
        #expect(throws: NetworkError.invalidMultipartEncoding) {
            try builder.makeRequest(ConfigurableRequest(multipartData: form), baseURL: base)
        }
    }

    @Test("CR/LF in a request header is rejected", arguments: [["X-A": "1\r\nX-B: 2"], ["X-A\r\n": "1"], ["X-A": "\n"]])
    func headerInjection(headers: [String: String]) {
        #expect(throws: NetworkError.self) { try builder.makeRequest(ConfigurableRequest(headers: headers), baseURL: base) }
    }

    @Test("an encodable body is JSON with the body's content type")
    func encodableBody() throws {
        let request = ConfigurableRequest(body: RequestBody(encodable: Item(id: 1, name: "a")))
        let built = try builder.makeRequest(request, baseURL: base)
        #expect(built.value(forHeader: "Content-Type") == "application/json")
        let data = try #require({ if case .data(let data) = built.payload { data } else { nil } }())
        #expect(try JSONDecoder().decode(Item.self, from: data) == Item(id: 1, name: "a"))
        #expect(built.head.httpBody == nil)
        #expect(built.method == "POST")
    }

    @Test("a form body is encoded and typed")
    func formBody() throws {
        let built = try builder.makeRequest(ConfigurableRequest(body: RequestBody(formURLEncoded: ["q": "a b", "n": "1+1"])), baseURL: base)
        #expect(built.value(forHeader: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(bodyText(built.payload) == "n=1%2B1&q=a%20b")
    }

    @Test("a multipart form carries its boundary in the content type")
    func multipartBody() throws {
        var form = MultipartFormData(boundary: "XYZ")
        form.addPart(name: "f", data: Data("x".utf8), mimeType: "text/plain")
        let built = try builder.makeRequest(ConfigurableRequest(multipartData: form), baseURL: base)
        #expect(built.value(forHeader: "Content-Type") == "multipart/form-data; boundary=XYZ")
        #expect(bodyText(built.payload) == String(decoding: form.encodedData()!, as: UTF8.self))
    }

    @Test("request headers override defaults; the user agent is added unless set")
    func headerPrecedence() throws {
        let custom = try builder.makeRequest(ConfigurableRequest(headers: ["content-type": "text/csv", "user-agent": "Mine"]), baseURL: base)
        #expect(custom.value(forHeader: "Content-Type") == "text/csv")
        #expect(custom.value(forHeader: "User-Agent") == "Mine")
        let plain = try builder.makeRequest(ConfigurableRequest(), baseURL: base)
        #expect(plain.value(forHeader: "User-Agent") == "Test/1.0")
        #expect(plain.value(forHeader: "Content-Type") == "application/json")
    }

    @Test("a header named again in another case replaces the value, once, under the first spelling")
    func headerCaseMerge() throws {
        let fields = try RequestBuilder.fields([("Content-Type", "a"), ("X-Id", "1"), ("content-type", "b"), ("CONTENT-TYPE", "c")])
        #expect(fields == ["Content-Type": "c", "X-Id": "1"])
        let built = try builder.makeRequest(ConfigurableRequest(headers: ["content-type": "text/csv", "ACCEPT": "text/plain"]), baseURL: base)
        #expect(built.head.allHTTPHeaderFields?.count == 3, "Content-Type, Accept and User-Agent, each once: \(built.head.allHTTPHeaderFields ?? [:])")
        #expect(built.value(forHeader: "accept") == "text/plain")
        #expect(throws: NetworkError.invalidHeader(name: "X-A")) { try RequestBuilder.fields([("X-A", "1\r\nX-B: 2")]) }
    }

    @Test("a stream body cannot be replayed; data bodies can")
    func replayability() throws {
        let stream = try builder.makeRequest(ConfigurableRequest(body: RequestBody(stream: InputStream(data: Data("abc".utf8)), length: 3, contentType: "text/plain")), baseURL: base)
        #expect(!stream.payload.isReplayable)
        #expect(stream.payload.knownLength == 3)
        let data = try builder.makeRequest(ConfigurableRequest(body: RequestBody(data: Data("abc".utf8), contentType: "text/plain")), baseURL: base)
        #expect(data.payload.isReplayable)
    }

    @Test("all nine methods are sent by name")
    func methods() throws {
        for method in HTTPMethod.allCases {
            let built = try builder.makeRequest(ConfigurableRequest(method: method), baseURL: base)
            #expect(built.method == method.rawValue)
        }
        #expect(HTTPMethod.allCases.count == 9)
    }
}
