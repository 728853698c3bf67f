#if AsyncHTTPClient
import Foundation
@testable import NetAsyncHTTPClient
import NetCore
import NIOCore
import NIOHTTP1
import Testing

@Suite("AsyncHTTPClient transport: heads")
struct HeadConversionTests {
    @Test("request fields go over in their order, a repeated one as separate fields, framing fields left out")
    func requestHeaders() throws {
        let fields = try HTTPHeaderFields([
            (name: "X-B", value: "b"),
            (name: "X-A", value: "a"),
            (name: "content-length", value: "12"),
            (name: "Cookie", value: "a=1"),
            (name: "Transfer-Encoding", value: "chunked"),
            (name: "x-a", value: "second"),
            (name: "Cookie", value: "b=2"),
        ])
        let headers = HeadConversion.headers(of: fields)
        #expect(headers.map(\.name) == ["X-B", "X-A", "Cookie", "x-a", "Cookie"])
        #expect(headers["x-a"] == ["a", "second"])
        #expect(headers["Cookie"] == ["a=1", "b=2"])
        #expect(HeadConversion.headers(of: HTTPHeaderFields()).isEmpty)
    }

    @Test(
        "framing fields are recognised in any case, and only they",
        arguments: [
            ("Content-Length", true), ("content-length", true), ("TRANSFER-ENCODING", true),
            ("Transfer-Encoding", true),
            ("Content-Type", false), ("Content-Lengthy", false), ("Transfer-Encodings", false),
            ("Content-Lengt", false), ("", false),
        ])
    func framing(name: String, isFraming: Bool) {
        #expect(HeadConversion.isFraming(name) == isFraming)
    }

    @Test("response fields stay apart and in order whatever their case; every Set-Cookie is a value of its own")
    func repeatedResponseFields() {
        let headers = HTTPHeaders([
            ("Set-Thing", "1"), ("X-Other", "o"), ("set-thing", "2"), ("Content-Length", "3"),
            ("Set-Cookie", "a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT"), ("set-cookie", "b=2"),
        ])
        let head = HeadConversion.responseHead(status: .created, headers: headers)
        #expect(head.statusCode == 201)
        #expect(head.reasonPhrase == "Created")
        #expect(head.headerFields.count == 6)
        #expect(head.headerFields.values(for: "SET-THING") == ["1", "2"])
        #expect(
            head.headerFields.map(\.name) == [
                "Set-Thing", "X-Other", "set-thing", "Content-Length", "Set-Cookie", "set-cookie",
            ])
        #expect(head.headerFields.values(for: "Set-Cookie") == ["a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT", "b=2"])
        #expect(head.value(forHeader: "x-other") == "o")
        #expect(head.declaredContentLength == 3)
    }

    @Test("a response field NetKit would refuse to send is left out, so no HTTPHeaderField holds CR, LF or NUL")
    func invalidResponseFields() {
        let headers = HTTPHeaders([
            ("X-Good", "1"), ("X-Smuggled", "v\r\nX-Evil: yes"), ("X-Nul", "a\0b"), ("X Bad", "v"), ("X-Good", "2"),
        ])
        let head = HeadConversion.responseHead(status: .ok, headers: headers)
        #expect(head.headerFields.map(\.name) == ["X-Good", "X-Good"])
        #expect(head.headerFields.values(for: "X-Good") == ["1", "2"])
    }

    @Test("the reason phrase is NIO's, also for a code it does not name")
    func reasonPhrase() {
        #expect(HeadConversion.responseHead(status: .notFound, headers: HTTPHeaders()).reasonPhrase == "Not Found")
        let custom = HeadConversion.responseHead(
            status: HTTPResponseStatus(statusCode: 299, reasonPhrase: "Fine"), headers: HTTPHeaders())
        #expect(custom.statusCode == 299)
        #expect(custom.reasonPhrase == "Fine")
    }

    @Test(
        "every method is NIO's method of the same name, one outside HTTPMethod too",
        arguments: NetCore.HTTPMethod.allCases.map(NetCore.HTTPRequestMethod.init) + [
            NetCore.HTTPRequestMethod(rawValue: "PROPFIND")!, NetCore.HTTPRequestMethod(rawValue: "M-SEARCH")!,
        ])
    func methods(method: NetCore.HTTPRequestMethod) {
        #expect(HeadConversion.method(method).rawValue == method.rawValue)
    }

    @Test("the URL string is joined from the head's parts, with no Foundation URL between")
    func urlString() throws {
        let head = try NetCore.HTTPRequestHead(
            method: .get, scheme: "https", authority: "[::1]:8443", path: "/a%20b?q=1&r=%2F")
        #expect(HeadConversion.urlString(of: head) == "https://[::1]:8443/a%20b?q=1&r=%2F")
        #expect(HeadConversion.host(ofAuthority: "[::1]:8443") == "::1")
        #expect(HeadConversion.host(ofAuthority: "api.example.com:80") == "api.example.com")
        #expect(HeadConversion.host(ofAuthority: "api.example.com") == "api.example.com")
    }

    @Test("an idle timeout becomes a deadline that far ahead; none for nil, zero, negative or beyond reach")
    func deadlines() {
        let before = NIODeadline.now()
        let deadline = AsyncHTTPClientTransport.deadline(after: .milliseconds(250))
        let after = NIODeadline.now()
        #expect(deadline >= before + .milliseconds(250) && deadline <= after + .milliseconds(250))
        for none in [nil, .zero, .milliseconds(-1), .seconds(Int64.max)] as [Duration?] {
            #expect(AsyncHTTPClientTransport.deadline(after: none) == .distantFuture)
        }
    }
}
#endif
