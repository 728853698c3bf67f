import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import NetKitLock
import Testing
import NetKit

struct Feed: NetworkRequest {
    typealias Response = EmptyResponse
    var path: String { "/feed" }
    var method: HTTPMethod { .get }
    var queryParameters: [String: String]? { ["stream": "true"] }
    var headers: [String: String]? { ["X-Device-ID": "device-7"] }
}

struct Record: Decodable, Equatable, Sendable {
    let n: Int
}

/// `stream()` against a real server on 127.0.0.1.
@Suite("Streaming over loopback TCP")
struct StreamingIntegrationTests {
    @Test("NDJSON records are seen before the server finishes, on the same road as send")
    func ndjsonBeforeTheEnd() async throws {
        let gate = try LoopbackGate()
        let server = try LoopbackServer { _ in
            .streamed(headers: [(name: "Content-Type", value: "application/x-ndjson")]) { writer in
                _ = writer.write("{\"n\":1}\n")
                guard writer.wait(for: gate, timeout: .seconds(120)) else { return writer.abort() }
                _ = writer.write("{\"n\":2}\n{\"n\":3}\n")
            }
        }
        defer { server.stop() }
        let manager = NetworkManager(
            baseURL: server.baseURL,
            userAgentConfiguration: UserAgentConfiguration(appName: "Streamer", appVersion: "1"))
        let response = try await manager.stream(Feed(), accessToken: { "tok" })
        #expect(response.statusCode == 200)
        var records: [Record] = []
        for try await record in response.ndjson(as: Record.self) {
            records.append(record)
            // The server is parked on the gate: the first record arrived while it had not finished.
            if records.count == 1 { gate.open() }
        }
        #expect(records == [Record(n: 1), Record(n: 2), Record(n: 3)])
        let request = try #require(server.requests.first)
        #expect(request.rawQuery == "stream=true")
        #expect(request.header("Authorization") == "Bearer tok")
        #expect(request.header("X-Device-ID") == "device-7")
        #expect(request.header("User-Agent")?.hasPrefix("Streamer/1") == true)
    }

    @Test("lines with CRLF and a multi-byte character split across writes")
    func linesAcrossWrites() async throws {
        let text = Array("héllo wörld\r\n\r\nnaïve ✓\nlast".utf8)
        let server = try LoopbackServer { _ in
            .streamed { writer in
                // One write per byte, so every boundary falls inside some line (and inside "é", "ö", "ï", "✓").
                for byte in text { guard writer.write([byte]) else { return } }
            }
        }
        defer { server.stop() }
        var lines: [String] = []
        for try await line in try await NetworkManager(baseURL: server.baseURL).stream(Feed(), accessToken: nil).lines()
        {
            lines.append(line)
        }
        #expect(lines == ["héllo wörld", "naïve ✓", "last"])
    }

    @Test("server-sent events: ids, multi-line data, comments, retry")
    func serverSentEvents() async throws {
        let server = try LoopbackServer { _ in
            .streamed(headers: [(name: "Content-Type", value: "text/event-stream")]) { writer in
                _ = writer.write(
                    ": welcome\r\nretry: 1500\r\nid: 1\r\nevent: greeting\r\ndata: hello\r\ndata: world\r\n\r\n")
                _ = writer.write("data: no id of its own\n\nid\ndata: id cleared\n\n")
            }
        }
        defer { server.stop() }
        var events: [ServerSentEvent] = []
        for try await event in try await NetworkManager(baseURL: server.baseURL).stream(Feed(), accessToken: nil)
            .events()
        {
            events.append(event)
        }
        #expect(
            events == [
                ServerSentEvent(id: "1", event: "greeting", data: "hello\nworld", retry: .milliseconds(1500)),
                ServerSentEvent(id: "1", event: "message", data: "no id of its own"),
                ServerSentEvent(id: "", event: "message", data: "id cleared"),
            ])
    }

    @Test("401 → one refresh → the stream, before any body byte")
    func refreshThenStream() async throws {
        let server = try LoopbackServer { request in
            if request.path == "/auth/refresh" { return .json(#"{"accessToken":"fresh"}"#) }
            guard request.header("Authorization") == "Bearer fresh" else {
                return .json(#"{"error":"expired"}"#, status: 401)
            }
            return .streamed { $0.write("one\ntwo\n") }
        }
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        let store = ManagerTokenStore(manager: manager)
        manager.tokenRefresher = store
        var lines: [String] = []
        for try await line in try await manager.stream(Feed(), accessToken: { store.current }).lines() {
            lines.append(line)
        }
        #expect(lines == ["one", "two"])
        #expect(server.requests.map(\.path) == ["/feed", "/auth/refresh", "/feed"])
    }

    @Test("a failed status drains its body up to exactly 1 MiB; one byte more is errorPayloadTooLarge")
    func drainLimits() async throws {
        let limit = 1 << 20
        let size = Lock(limit)
        let server = try LoopbackServer { _ in
            let count = size.withLock { $0 }
            return .streamed(status: 503, framing: .contentLength(count)) { $0.writePattern(byteCount: count) }
        }
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        let error = await #expect(throws: HTTPError.self) { try await manager.stream(Feed(), accessToken: nil) }
        #expect(error?.statusCode == 503)
        #expect(error?.data.count == limit)
        #expect(error?.isTruncated == false)
        size.withLock { $0 = limit + 1 }
        await #expect(throws: StreamingError.errorPayloadTooLarge(limitBytes: 1_048_576)) {
            try await manager.stream(Feed(), accessToken: nil)
        }
    }

    @Test("an errorDecoder turns a streamed failure into the caller's error")
    func errorDecoder() async throws {
        struct Refused: Error, Decodable, Equatable { let reason: String }
        struct Decoded: NetworkRequest {
            typealias Response = EmptyResponse
            var path: String { "/feed" }
            var method: HTTPMethod { .get }
            var errorDecoder: ((Data) -> (any Error)?)? { { try? JSONDecoder().decode(Refused.self, from: $0) } }
        }
        let server = try LoopbackServer { _ in .json(#"{"reason":"quota"}"#, status: 429) }
        defer { server.stop() }
        await #expect(throws: Refused(reason: "quota")) {
            try await NetworkManager(baseURL: server.baseURL).stream(Decoded(), accessToken: nil)
        }
    }

    @Test("a connection dropped mid-body, or a body shorter than its Content-Length, makes iteration throw")
    func droppedMidBody() async throws {
        for framing in [LoopbackBodyFraming.chunked, .contentLength(1000)] {
            let server = try LoopbackServer { _ in
                .streamed(framing: framing) { writer in
                    _ = writer.write("complete line\npartial")
                    writer.abort()
                }
            }
            defer { server.stop() }
            var lines: [String] = []
            let error = await #expect(throws: URLError.self) {
                for try await line in try await NetworkManager(baseURL: server.baseURL).stream(Feed(), accessToken: nil)
                    .lines()
                {
                    lines.append(line)
                }
            }
            #expect(error?.code == .networkConnectionLost)
            #expect(lines == ["complete line"], "no partial line is passed off as complete")
        }
    }

    @Test("breaking out of the loop closes the connection: the server sees it close")
    func earlyBreakCloses() async throws {
        let sawClose = Lock(false)
        let server = try LoopbackServer { _ in
            .streamed { writer in
                _ = writer.write("first\nsecond\n")
                sawClose.withLock { $0 = writer.waitForClientClose(timeout: .seconds(120)) }
            }
        }
        defer { server.stop() }
        let response = try await NetworkManager(baseURL: server.baseURL).stream(Feed(), accessToken: nil)
        for try await line in response.lines() {
            #expect(line == "first")
            break
        }
        // `response` is still alive here: the loop's end alone closes the connection.
        try await server.wait(for: .closedConnections, atLeast: 1, timeout: .seconds(120))
        withExtendedLifetime(response) {}
        #expect(server.closedConnections == 1)
    }

    @Test("cancelling the consuming task closes the connection and ends in CancellationError")
    func cancellationCloses() async throws {
        let server = try LoopbackServer { _ in
            .streamed { writer in
                _ = writer.write("first\n")
                _ = writer.waitForClientClose(timeout: .seconds(120))
            }
        }
        defer { server.stop() }
        let (gotFirst, signal) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            for try await _ in try await NetworkManager(baseURL: server.baseURL).stream(Feed(), accessToken: nil)
                .lines()
            { signal.yield() }
        }
        var iterator = gotFirst.makeAsyncIterator()
        await iterator.next()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        try await server.wait(for: .closedConnections, atLeast: 1, timeout: .seconds(120))
    }

    @Test("a consumer that stops reading holds the transport's memory and spill limits, then fails loudly")
    func slowConsumerBounded() async throws {
        // A body that goes on until the client hangs up (bounded at 1 GiB, so the server cannot loop forever).
        let server = try LoopbackServer { _ in
            .streamed { writer in
                for _ in 0..<4096 { guard writer.writePattern(byteCount: 256 * 1024) else { return } }
            }
        }
        defer { server.stop() }
        let limit = 4 << 20
        let spill = 8 << 20
        let manager = NetworkManager(
            baseURL: { server.baseURL }, transport: URLSessionTransport(bufferLimit: limit, spillLimit: spill))
        let response = try await manager.stream(Feed(), accessToken: nil)
        var iterator = response.chunks.makeAsyncIterator()
        // The consumer does not read and the server keeps sending: past both limits the transport hangs up.
        try await server.wait(for: .closedConnections, atLeast: 1, timeout: .seconds(120))
        await #expect(throws: StreamingError.bufferLimitExceeded(limitBytes: limit + spill)) {
            while try await iterator.next() != nil {}
        }
    }

    @Test("a consumer far slower than the network reads a body 32 times the memory limit whole and in order")
    func slowConsumerCompletes() async throws {
        let size = 16 << 20
        let (written, signal) = AsyncStream.makeStream(of: Void.self)
        let server = try LoopbackServer { _ in
            .streamed { writer in
                // Whether or not the client took it all: a client that hung up must fail the test, not hang it.
                defer { signal.yield() }
                _ = writer.writePattern(byteCount: size)
            }
        }
        defer { server.stop() }
        // Before the spill file this failed with bufferLimitExceeded as soon as 1 MiB waited unread.
        let manager = NetworkManager(
            baseURL: { server.baseURL }, transport: URLSessionTransport(bufferLimit: 512 << 10))
        let response = try await manager.stream(Feed(), accessToken: nil)
        // Nothing is read until the server has written the whole body (or the client hung up).
        var signals = written.makeAsyncIterator()
        await signals.next()
        // Checked against one precomputed stretch of the pattern, so the check costs little CPU per chunk.
        let period = LoopbackBodyPattern.period
        let reference = LoopbackBodyPattern.data(count: period * 1024 + 512 * 1024)
        var offset = 0
        var mismatches = 0
        for try await chunk in response.chunks {
            var start = 0
            while start < chunk.count {
                let count = min(chunk.count - start, 512 * 1024)
                let phase = (offset + start) % period
                let expected = reference[phase..<phase + count]
                if chunk[chunk.startIndex + start..<chunk.startIndex + start + count] != expected { mismatches += 1 }
                start += count
            }
            offset += chunk.count
        }
        #expect(mismatches == 0)
        #expect(offset == size)
    }

    @Test("a manager whose session is a mock streams through a real URLSession, never the mock's data(for:)")
    func mockSessionStreamsForReal() async throws {
        final class Mock: URLSessionProtocol, Sendable {
            let calls = Lock(0)
            func data(for request: URLRequest) async throws -> (Data, URLResponse) {
                calls.withLock { $0 += 1 }
                throw URLError(.unsupportedURL)
            }
        }
        let server = try LoopbackServer { _ in .streamed { $0.write("real\n") } }
        defer { server.stop() }
        let mock = Mock()
        let manager = NetworkManager(baseURL: server.baseURL, session: mock)
        var lines: [String] = []
        for try await line in try await manager.stream(Feed(), accessToken: nil).lines() { lines.append(line) }
        #expect(lines == ["real"])
        #expect(mock.calls.withLock { $0 } == 0)
    }
}
