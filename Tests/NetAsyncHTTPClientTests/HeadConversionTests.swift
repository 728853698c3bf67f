#if AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import NetAsyncHTTPClient
import NIOHTTP1
import Testing

@Suite("AsyncHTTPClient transport: heads")
struct HeadConversionTests {
    @Test("request headers go over without framing headers, in a stable order")
    func requestHeaders() {
        var head = URLRequest(url: URL(string: "http://127.0.0.1/")!)
        head.setValue("b", forHTTPHeaderField: "X-B")
        head.setValue("a", forHTTPHeaderField: "X-A")
        head.setValue("12", forHTTPHeaderField: "Content-Length")
        head.setValue("chunked", forHTTPHeaderField: "Transfer-Encoding")
        let headers = HeadConversion.headers(of: head)
        #expect(headers.map(\.name) == ["X-A", "X-B"])
        #expect(headers["x-a"] == ["a"])
    }

    @Test("repeated response fields are joined in order, whatever their case")
    func repeatedResponseFields() throws {
        let headers = HTTPHeaders([("Set-Thing", "1"), ("X-Other", "o"), ("set-thing", "2"), ("Content-Length", "3")])
        let response = try #require(HeadConversion.response(
            status: .created, version: .http1_1, headers: headers, url: URL(string: "http://127.0.0.1/x")!
        ))
        #expect(response.statusCode == 201)
        #expect(response.value(forHTTPHeaderField: "set-thing") == "1, 2")
        #expect(response.value(forHTTPHeaderField: "X-Other") == "o")
        #expect(response.expectedContentLength == 3)
        #expect(response.url?.path == "/x")
    }

    @Test("versions are spelled as on the wire", arguments: [
        (HTTPVersion.http1_1, "HTTP/1.1"), (.http1_0, "HTTP/1.0"), (.http2, "HTTP/2"),
    ])
    func versions(version: HTTPVersion, spelled: String) {
        #expect(HeadConversion.versionString(version) == spelled)
    }

    @Test("timeouts in seconds become durations and deadlines; none for 0, negative, infinite or NaN")
    func timeouts() {
        #expect(AsyncHTTPClientTransport.duration(0.25) == .milliseconds(250))
        #expect(AsyncHTTPClientTransport.duration(0.001) == .milliseconds(1))
        for none in [0, -1, .infinity, .nan] as [TimeInterval] {
            #expect(AsyncHTTPClientTransport.duration(none) == nil)
            #expect(AsyncHTTPClientTransport.deadline(after: none) == .distantFuture)
        }
    }
}
#endif
