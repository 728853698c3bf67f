import Foundation
import LoopbackServer
import Testing

@Suite("HTTP/1.1 protocol handling")
struct ProtocolTests {
    @Test func keepAliveServesTwoRequestsOnOneConnection() throws {
        let server = try LoopbackServer { .text("you asked for \($0.path)") }
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET /first HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let first = try client.readResponse()
        try client.send("GET /second?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let second = try client.readResponse()

        #expect(first.status == 200)
        #expect(first.bodyText == "you asked for /first")
        #expect(first.header("Connection") == nil)
        #expect(first.header("Content-Length") == "20")
        #expect(second.bodyText == "you asked for /second")
        #expect(server.acceptedConnections == 1)
        #expect(server.requests.map(\.target) == ["/first", "/second?x=1"])
        #expect(server.requests.map(\.connectionNumber) == [1, 1])
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try LoopbackServer { .text($0.path) }
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")

        #expect(try client.readResponse().bodyText == "/a")
        #expect(try client.readResponse().bodyText == "/b")
        #expect(server.requestCount == 2)
    }

    @Test func contentLengthBodyIsRecordedWithHeadersInOrder() throws {
        let server = try makeServer()
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(
            "POST /upload HTTP/1.1\r\nHost: x\r\nX-Custom: one\r\ncontent-length: 11\r\nX-Custom:  two \r\n\r\nhello world"
        )
        let response = try client.readResponse()

        #expect(response.status == 200)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.version == "HTTP/1.1")
        #expect(request.bodyText == "hello world")
        #expect(!request.wasChunked)
        #expect(
            pairs(request.headers) == [
                ["Host", "x"], ["X-Custom", "one"], ["content-length", "11"], ["X-Custom", "two"],
            ])
        #expect(request.header("CONTENT-LENGTH") == "11")
        #expect(request.header("x-custom") == "one")
        #expect(request.headerValues("X-Custom") == ["one", "two"])
        #expect(request.header("Missing") == nil)
    }

    @Test func chunkedBodyIsDechunkedWithExtensionsAndTrailers() throws {
        let server = try makeServer()
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(
            "POST /stream HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n"
                + "1;ext=\"v\"\r\n \r\n"
                + "A\r\n0123456789\r\n"
                + "0\r\nX-Checksum: abc\r\n\r\n"
        )
        #expect(try client.readResponse().status == 200)

        let request = try #require(server.requests.first)
        #expect(request.wasChunked)
        #expect(request.bodyText == "hello 0123456789")
        #expect(pairs(request.trailers) == [["X-Checksum", "abc"]])
    }

    @Test func expectContinueIsAnsweredBeforeTheBodyIsSent() throws {
        let server = try LoopbackServer { .text("got \($0.body.count) bytes") }
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("PUT /big HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\nExpect: 100-continue\r\n\r\n")
        // The body has not been sent, so this only passes if the server answers the expectation first.
        #expect(try client.readLine() == "HTTP/1.1 100 Continue")
        #expect(try client.readLine() == "")
        try client.send("abcdef")
        let response = try client.readResponse()

        #expect(response.status == 200)
        #expect(response.bodyText == "got 6 bytes")
        let request = try #require(server.requests.first)
        #expect(request.expectedContinue)
        #expect(request.bodyText == "abcdef")
    }

    @Test func expectContinueWorksWithChunkedBodies() throws {
        let server = try makeServer()
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nExpect: 100-Continue\r\n\r\n"
        )
        #expect(try client.readLine() == "HTTP/1.1 100 Continue")
        #expect(try client.readLine() == "")
        try client.send("3\r\nabc\r\n0\r\n\r\n")

        #expect(try client.readResponse().status == 200)
        #expect(server.requests.first?.bodyText == "abc")
    }

    @Test func headResponseHasLengthButNoBody() throws {
        let server = try makeServer(.text("twelve bytes"))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readResponse(toHEAD: true)
        // A body leaking after the HEAD response would corrupt this second response.
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let get = try client.readResponse()

        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "12")
        #expect(get.bodyText == "twelve bytes")
    }

    @Test(arguments: [204, 304])
    func bodylessStatusesSendNoBody(status: Int) throws {
        let server = try makeServer(LoopbackResponse(status: status, body: Data("ignored".utf8)))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try client.readResponse()
        let second = try client.readResponse()

        #expect(first.status == status)
        #expect(first.header("Content-Length") == nil)
        #expect(second.status == status)
    }

    @Test func http10ConnectionClosesAfterResponse() throws {
        let server = try makeServer(.text("old"))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.0\r\n\r\n")
        let response = try client.readResponse()

        #expect(response.header("Connection") == "close")
        #expect(response.bodyText == "old")
        #expect(try client.readsEOF())
    }

    @Test func http10KeepAliveIsEchoed() throws {
        let server = try makeServer()
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(try client.readResponse().header("Connection") == "keep-alive")
        try client.send("GET / HTTP/1.0\r\n\r\n")
        #expect(try client.readResponse().header("Connection") == "close")
        #expect(server.acceptedConnections == 1)
    }

    @Test func clientConnectionCloseIsHonoured() throws {
        let server = try makeServer()
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")

        #expect(try client.readResponse().header("Connection") == "close")
        #expect(try client.readsEOF())
    }

    @Test func framingHeadersAreOwnedByTheServer() throws {
        let server = try makeServer(
            LoopbackResponse(
                status: 201,
                headers: [
                    (name: "X-Trace", value: "42"),
                    (name: "Content-Length", value: "999"),
                    (name: "Transfer-Encoding", value: "gzip"),
                ],
                body: Data("abc".utf8)
            ))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()

        #expect(response.status == 201)
        #expect(pairs(response.headers) == [["X-Trace", "42"], ["Content-Length", "3"]])
        #expect(response.bodyText == "abc")
    }

    @Test func handlerConnectionCloseHeaderClosesTheConnection() throws {
        let server = try makeServer(LoopbackResponse(headers: [(name: "Connection", value: "close")]))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")

        #expect(try client.readResponse().header("Connection") == "close")
        #expect(try client.readsEOF())
    }

    @Test func jsonAndTextHelpersSetContentTypes() {
        let json = LoopbackResponse.json(#"{"a":1}"#, status: 201)
        let text = LoopbackResponse.text("hi")

        #expect(json.status == 201)
        #expect(pairs(json.headers) == [["Content-Type", "application/json"]])
        #expect(json.body == Data(#"{"a":1}"#.utf8))
        #expect(text.status == 200)
        #expect(pairs(text.headers) == [["Content-Type", "text/plain; charset=utf-8"]])
        #expect(text.with(.closeAfterResponse).faults == [.closeAfterResponse])
    }

    @Test func baseURLIsLoopbackWithTheChosenPort() throws {
        let server = try makeServer()
        defer { server.stop() }

        #expect(server.port > 0)
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
    }

    @Test func oversizedHeaderSectionGets431() throws {
        let server = try makeServer(limits: LoopbackLimits(maxHeaderBytes: 1024))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 2000))\r\n\r\n")

        #expect(try client.readResponse().status == 431)
        #expect(try client.readsEOF())
        #expect(server.requestCount == 0)
    }

    @Test func declaredOversizedBodyGets413WithoutReadingIt() throws {
        let server = try makeServer(limits: LoopbackLimits(maxBodyBytes: 100))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\nExpect: 100-continue\r\n\r\n")
        let response = try client.readResponse()

        #expect(response.status == 413)
        #expect(response.header("Connection") == "close")
        #expect(server.requestCount == 0)
    }

    @Test func oversizedChunkedBodyGets413() throws {
        let server = try makeServer(limits: LoopbackLimits(maxBodyBytes: 10))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n"
        )

        #expect(try client.readResponse().status == 413)
        #expect(try client.readsEOF())
    }

    @Test(arguments: [
        ("GARBAGE\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nBad Header: x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400),
        ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n+1\r\na\r\n0\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nX-A: a\rb\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        ("GET / HTTP/2.0\r\n\r\n", 505),
        ("GET / HTTP/1.1\r\nExpect: magic\r\n\r\n", 417),
    ])
    func malformedRequestsAreRejected(request: String, status: Int) throws {
        let server = try makeServer()
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(request)

        #expect(try client.readResponse().status == status)
        #expect(try client.readsEOF())
        #expect(server.requestCount == 0)
    }

    @Test func bareLineFeedsAreAccepted() throws {
        let server = try makeServer()
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("\r\nGET /lf HTTP/1.1\nHost: x\n\n")

        #expect(try client.readResponse().status == 200)
        #expect(server.requests.first?.target == "/lf")
    }
}
