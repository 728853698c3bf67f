import Foundation
import LoopbackServer
import NetCore
import NetTransport
import Testing

@Suite("URLSession transport over loopback TCP")
struct URLSessionTransportTests {
    let transport = URLSessionTransport()

    func get(_ url: URL, headers: [String: String] = [:], progress: NetworkProgress? = nil) throws -> TransportRequest {
        TransportRequest(
            head: try HTTPRequestHead(url: url, headerFields: HTTPHeaderFields(headers)), progress: progress)
    }

    func collect(_ body: ResponseBody) async throws -> Data {
        try await body.collect(upTo: 64 << 20)
    }

    @Test("the head arrives before the body is sent")
    func headFirst() async throws {
        let server = try LoopbackServer { _ in LoopbackResponse.text("late body").with(.delayBeforeBody(.seconds(60))) }
        defer { server.stop() }
        let response = try await transport.send(try get(server.baseURL))
        #expect(response.statusCode == 200)
        // Dropping the unread body cancels the transfer; the server sees the client leave.
        _ = consume response
        try await server.wait(for: .clientAbortedResponses, atLeast: 1)
    }

    @Test(
        "bodies survive odd chunk sizes and split writes",
        arguments: [
            LoopbackFault.chunked(sizes: [1, 7, 4096, 3]), .splitWrites(sizes: [1, 2, 3, 500, 1]),
            .hugeHeader(bytes: 32 * 1024),
        ])
    func oddFraming(fault: LoopbackFault) async throws {
        let payload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let server = try LoopbackServer { _ in LoopbackResponse(status: 200, body: payload, faults: [fault]) }
        defer { server.stop() }
        let response = try await transport.send(try get(server.baseURL))
        #expect(try await collect(response.body) == payload)
    }

    @Test("a connection dropped mid-body ends the body with an error")
    func droppedMidBody() async throws {
        let server = try LoopbackServer { _ in
            LoopbackResponse(status: 200, body: Data(count: 50_000), faults: [.dropAfterBodyBytes(1000)])
        }
        defer { server.stop() }
        let response = try await transport.send(try get(server.baseURL))
        let error = await #expect(throws: TransportError.self) { try await collect(response.body) }
        #expect(error?.kind == .connectionLost)
    }

    @Test("a Content-Length longer than the body is an error, not a short success")
    func wrongContentLength() async throws {
        let server = try LoopbackServer { _ in
            LoopbackResponse(status: 200, body: Data(count: 100), faults: [.declaredContentLength(5000)])
        }
        defer { server.stop() }
        let response = try await transport.send(try get(server.baseURL))
        let error = await #expect(throws: TransportError.self) { try await collect(response.body) }
        #expect(error?.kind == .connectionLost)
    }

    @Test("HEAD and 204 responses end cleanly although they carry no body", arguments: [HTTPRequestMethod.head, .get])
    func bodilessResponses(method: HTTPRequestMethod) async throws {
        let server = try LoopbackServer { request in
            request.method == "HEAD" ? .text("a body HEAD must not send") : LoopbackResponse(status: 204)
        }
        defer { server.stop() }
        var request = try get(server.baseURL)
        request.head.method = method
        let response = try await transport.send(request)
        #expect(try await collect(response.body).isEmpty)
        #expect(response.statusCode == (method == .head ? 200 : 204))
    }

    @Test("a gzip-encoded body is delivered decoded and ends cleanly")
    func gzipBody() async throws {
        // "hi" compressed with gzip: 22 bytes on the wire for 2 decoded ones.
        let gzip = Data([
            0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xCB, 0xC8, 0x04, 0x00, 0xAC, 0x2A, 0x93, 0xD8,
            0x02, 0x00, 0x00, 0x00,
        ])
        let server = try LoopbackServer { _ in
            LoopbackResponse(status: 200, headers: [("Content-Encoding", "gzip")], body: gzip)
        }
        defer { server.stop() }
        let response = try await transport.send(try get(server.baseURL))
        #expect(try await collect(response.body) == Data("hi".utf8))
    }

    @Test("download progress for a request without a body")
    func downloadProgress() async throws {
        let server = try LoopbackServer { _ in
            LoopbackResponse(status: 200, body: Data(count: 4 << 20), faults: [.splitWrites(sizes: [256 * 1024])])
        }
        defer { server.stop() }
        let progress = NetworkProgress()
        progress.follow(.download)
        let response = try await transport.send(try get(server.baseURL, progress: progress))
        #expect(try await collect(response.body).count == 4 << 20)
        #expect(progress.bytesReceived == 4 << 20 && progress.totalBytesToReceive == 4 << 20)
        #expect(progress.fractionCompleted > 0)
        #expect(progress.fractionCompleted < 1, "1.0 is the engine's word once the request has succeeded")
    }

    @Test("cancelling the calling task cancels the network task")
    func cancellation() async throws {
        let server = try LoopbackServer { _ in LoopbackResponse.text("slow").with(.delayBeforeHead(.seconds(60))) }
        defer { server.stop() }
        let transport = self.transport
        let request = try get(server.baseURL)
        let task = Task { try await transport.send(request) }
        try await server.waitForRequests(1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        try await server.wait(for: .clientAbortedResponses, atLeast: 1)
    }

    @Test("a redirect comes back as it is, at once, with or without a body: the engine decides each hop")
    func redirectsComeBack() async throws {
        let server = try LoopbackServer { request in
            switch request.path {
            case "/empty": LoopbackResponse(status: 302, headers: [("Location", "/landing")])
            case "/body": LoopbackResponse(status: 307, headers: [("Location", "/landing")], body: Data("moved".utf8))
            default: .text("landed")
            }
        }
        defer { server.stop() }
        let empty = try await transport.send(try get(server.baseURL.appendingPathComponent("empty")))
        #expect(empty.statusCode == 302 && empty.head.headerFields.value(for: "Location") == "/landing")
        #expect(try await collect(empty.body).isEmpty)
        let body = try await transport.send(try get(server.baseURL.appendingPathComponent("body")))
        let text = String(decoding: try await collect(body.body), as: UTF8.self)
        #expect(body.statusCode == 307 && text == "moved")
        #expect(server.requests.map(\.path) == ["/empty", "/body"])
    }

    @Test("a connection refused is a TransportError the retry rules know as transient")
    func refused() async throws {
        let server = try LoopbackServer { _ in .text("") }
        let url = server.baseURL
        server.stop()
        let error = await #expect(throws: TransportError.self) { try await transport.send(try get(url)) }
        #expect(error?.kind == .cannotConnect)
        #expect(error?.isTransient == true)
        #expect(error?.host == "127.0.0.1")
    }
}
