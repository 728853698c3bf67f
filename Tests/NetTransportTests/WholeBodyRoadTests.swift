import Foundation
import LoopbackServer
import NetCore
import NetTransport
import Observation
import NetKitLock
import Testing

/// The road `send` takes through ``URLSessionTransport``: ``TransportRequest/wholeBody`` set, the body gathered by
/// the delegate and handed out complete when the transfer ends. It must keep every promise of the streamed road.
@Suite("URLSession transport: bodies collected whole")
struct WholeBodyRoadTests {
    let transport = URLSessionTransport()

    struct Blob: Endpoint {
        struct Response: Decodable {}
        var path: String { "/blob" }
        var method: HTTPMethod { .get }
    }

    func whole(
        _ url: URL, success: Int = 64 << 20, failure: Int = 1 << 20, headers: [String: String] = [:],
        progress: NetworkProgress? = nil
    ) throws -> TransportRequest {
        var request = TransportRequest(
            head: try HTTPRequestHead(url: url, headerFields: HTTPHeaderFields(headers)), progress: progress)
        request.wholeBody = WholeBodyLimits(success: success, failure: failure)
        return request
    }

    @Test(
        "the body arrives complete with its head, whatever the framing",
        arguments: [
            LoopbackFault.chunked(sizes: [1, 7, 4096, 3]), .splitWrites(sizes: [1, 2, 3, 500, 1]),
            .hugeHeader(bytes: 32 * 1024),
        ])
    func complete(fault: LoopbackFault) async throws {
        let payload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let server = try LoopbackServer { _ in LoopbackResponse(status: 200, body: payload, faults: [fault]) }
        defer { server.stop() }
        let response = try await transport.send(try whole(server.baseURL))
        #expect(response.statusCode == 200)
        #expect(response.body.bufferedData == payload, "handed out in memory, not as a stream")
    }

    @Test("a 2xx body past its limit is cut at limit + 1 bytes, the transfer stops, and send fails")
    func successPastLimit() async throws {
        // 64 KiB, then the body is held open until the client leaves: the server sees the transfer stop. Chunked: a
        // declared length beyond the limit is refused at the head, before any byte (conformance: "body declared beyond
        // the limit").
        let server = try LoopbackServer { _ in
            .streamed(framing: .chunked) { writer in
                writer.writePattern(byteCount: 64 * 1024)
                _ = writer.waitForClientClose(timeout: .seconds(10))
            }
        }
        defer { server.stop() }
        let response = try await transport.send(try whole(server.baseURL, success: 1000))
        #expect(response.body.bufferedData == LoopbackBodyPattern.data(count: 1001))
        try await server.wait(for: .clientAbortedResponses, atLeast: 1)
        let executor = RequestExecutor(transport: transport, responseLimit: 1000)
        await #expect(throws: NetworkError.responseTooLarge(limitBytes: 1000)) {
            try await executor.send(Blob(), baseURL: server.baseURL)
        }
    }

    @Test("any other body is cut at its own limit, and send keeps it as a truncated error payload")
    func failurePastLimit() async throws {
        let server = try LoopbackServer { _ in .patterned(byteCount: 32 << 20, status: 500) }
        defer { server.stop() }
        let response = try await transport.send(try whole(server.baseURL, success: 10, failure: 100))
        #expect(response.statusCode == 500)
        #expect(response.body.bufferedData == LoopbackBodyPattern.data(count: 101))
        let executor = RequestExecutor(transport: transport, errorPayloadLimit: 100)
        let error = await #expect(throws: HTTPError.self) { try await executor.send(Blob(), baseURL: server.baseURL) }
        #expect(error?.statusCode == 500)
        #expect(error?.isTruncated == true)
        #expect(error?.data == LoopbackBodyPattern.data(count: 100))
    }

    @Test(
        "a connection dropped mid-body, or a body shorter than its Content-Length: the head, then a failing body",
        arguments: [LoopbackFault.dropAfterBodyBytes(1000), .declaredContentLength(60_000)])
    func truncated(fault: LoopbackFault) async throws {
        let server = try LoopbackServer { _ in LoopbackResponse(status: 200, body: Data(count: 50_000), faults: [fault])
        }
        defer { server.stop() }
        let response = try await transport.send(try whole(server.baseURL))
        #expect(response.statusCode == 200)
        #expect(response.body.bufferedData == nil, "a broken body is not handed over as if whole")
        let error = await #expect(throws: TransportError.self) { try await response.body.collect(upTo: 1 << 20) }
        #expect(error?.kind == .connectionLost)
    }

    @Test("cancelling the calling task while the body is in flight cancels the network task")
    func cancellationMidBody() async throws {
        let server = try LoopbackServer { _ in LoopbackResponse.text("late body").with(.delayBeforeBody(.seconds(60))) }
        defer { server.stop() }
        let transport = self.transport
        let request = try whole(server.baseURL)
        let task = Task { try await transport.send(request) }
        try await server.waitForRequests(1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        try await server.wait(for: .clientAbortedResponses, atLeast: 1)
    }

    @Test("download progress is reported")
    func downloadProgress() async throws {
        let server = try LoopbackServer { _ in
            LoopbackResponse(status: 200, body: Data(count: 4 << 20), faults: [.splitWrites(sizes: [256 * 1024])])
        }
        defer { server.stop() }
        let progress = NetworkProgress()
        progress.follow(.download)
        let response = try await transport.send(try whole(server.baseURL, progress: progress))
        #expect(response.body.bufferedData?.count == 4 << 20)
        #expect(progress.bytesReceived == 4 << 20 && progress.totalBytesToReceive == 4 << 20)
        #expect(progress.fractionCompleted > 0)
        #expect(progress.fractionCompleted < 1, "1.0 is the engine's word once the request has succeeded")
    }

    @Test(
        "an observer of progress that cancels the request from its callback does not stall the session",
        .timeLimit(.minutes(10)))
    func cancelFromProgressObserver() async throws {
        // On Linux the observer is told on URLSession's work queue, which a synchronous task.cancel() would wait for.
        let server = try LoopbackServer { _ in
            .streamed(framing: .contentLength(32 << 20)) { writer in
                writer.writePattern(byteCount: 64 * 1024)
                _ = writer.waitForClientClose(timeout: .seconds(10))
            }
        }
        defer { server.stop() }
        let transport = self.transport
        let progress = NetworkProgress()
        progress.follow(.download)
        let request = try whole(server.baseURL, progress: progress)
        let running = Lock<Task<TransportResponse, any Error>?>(nil)
        withObservationTracking {
            _ = progress.fractionCompleted
        } onChange: {
            running.withLock { $0?.cancel() }
        }
        // Started under the lock, so the observer, which takes the lock too, always finds the task.
        let task = running.withLock { running in
            let task = Task { try await transport.send(request) }
            running = task
            return task
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        try await server.wait(for: .clientAbortedResponses, atLeast: 1)
        // The session still serves requests.
        let small = try LoopbackServer { _ in .text("ok") }
        defer { small.stop() }
        #expect(try await transport.send(try whole(small.baseURL)).body.bufferedData == Data("ok".utf8))
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
        let empty = try await transport.send(try whole(server.baseURL.appendingPathComponent("empty")))
        #expect(empty.statusCode == 302 && empty.head.headerFields.value(for: "Location") == "/landing")
        #expect(empty.body.bufferedData?.isEmpty == true)
        let body = try await transport.send(try whole(server.baseURL.appendingPathComponent("body")))
        #expect(body.statusCode == 307 && body.body.bufferedData == Data("moved".utf8))
        #expect(server.requests.map(\.path) == ["/empty", "/body"])
    }

    @Test("HEAD and 204 responses arrive with an empty body", arguments: [HTTPRequestMethod.head, .get])
    func bodiless(method: HTTPRequestMethod) async throws {
        let server = try LoopbackServer { request in
            request.method == "HEAD" ? .text("a body HEAD must not send") : LoopbackResponse(status: 204)
        }
        defer { server.stop() }
        var request = try whole(server.baseURL)
        request.head.method = method
        let response = try await transport.send(request)
        #expect(response.body.bufferedData == Data())
        #expect(response.statusCode == (method == .head ? 200 : 204))
    }

    @Test("a Basic challenge nobody answers arrives as the server's 401 with its body")
    func unansweredChallenge() async throws {
        let server = try LoopbackServer { _ in
            LoopbackResponse(
                status: 401, headers: [(name: "WWW-Authenticate", value: #"Basic realm="netkit""#)],
                body: Data("no".utf8))
        }
        defer { server.stop() }
        let response = try await transport.send(try whole(server.baseURL))
        #expect(response.statusCode == 401)
        #expect(response.body.bufferedData == Data("no".utf8))
    }

    @Test("a gzip-encoded body is delivered decoded")
    func gzip() async throws {
        // "hi" compressed with gzip: 22 bytes on the wire for 2 decoded ones.
        let gzip = Data([
            0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xCB, 0xC8, 0x04, 0x00, 0xAC, 0x2A, 0x93, 0xD8,
            0x02, 0x00, 0x00, 0x00,
        ])
        let server = try LoopbackServer { _ in
            LoopbackResponse(status: 200, headers: [("Content-Encoding", "gzip")], body: gzip)
        }
        defer { server.stop() }
        let response = try await transport.send(try whole(server.baseURL))
        #expect(response.body.bufferedData == Data("hi".utf8))
    }
}
