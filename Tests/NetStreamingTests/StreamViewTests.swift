import Foundation
import NetCore
import Testing
import NetStreaming

struct Record: Codable, Equatable, Sendable {
    let id: Int
    let name: String
}

@Suite("Chunk views: lines, NDJSON, events, bytes")
struct StreamViewTests {
    static let lineSample = "première\r\n\nzweite 🚀\n\r\n  \nlast é"
    static let ndjsonSample = "{\"id\":1,\"name\":\"é\"}\n\r\n{\"id\":2,\"name\":\"🚀\"}\r\n\n{\"id\":3,\"name\":\"c\"}"
    static let sseSample = ServerSentEventParserTests.samples[0]

    // MARK: lines

    @Test("lines() skips blank lines and keeps a line of spaces")
    func linesSkipBlank() async throws {
        #expect(try await collect(LineSequence(body(Self.lineSample))) == ["première", "zweite 🚀", "  ", "last é"])
    }

    @Test("lines over every cut into 2 or 3 chunks, and byte by byte, are the lines of the whole")
    func linesEverySplit() async throws {
        let expected = try await collect(LineSequence(body(Self.lineSample)))
        for chunks in ChunkSplits.all(Self.lineSample) {
            #expect(try await collect(LineSequence(body(chunks))) == expected, "chunks \(chunks.map(\.count))")
        }
    }

    @Test("a line over the limit ends the lines with lineTooLong after the lines before it; then next() is nil")
    func linesLimit() async {
        let result = await collectUntilError(LineSequence(body("ok\n123456\nnever\n"), maximumLineLength: 5))
        #expect(result.elements == ["ok"])
        #expect(result.error as? StreamingError == .lineTooLong(limitBytes: 5))
        #expect(result.nextAfterEnd == nil)
    }

    @Test("a body that breaks ends the lines with its error, after the complete lines; a partial line is not delivered")
    func linesBodyError() async {
        let result = await collectUntilError(LineSequence(body([Data("a\nb\npart".utf8)], failingWith: BrokenPipe())))
        #expect(result.elements == ["a", "b"])
        #expect(result.error is BrokenPipe)
        #expect(result.nextAfterEnd == nil)
    }

    @Test("invalid UTF-8 in lines becomes U+FFFD")
    func linesInvalidUTF8() async throws {
        #expect(try await collect(LineSequence(body([Data([0x6F, 0x6B, 0xC0, 0x0A])]))) == ["ok\u{FFFD}"])
    }

    // MARK: NDJSON

    @Test("ndjson decodes one record per non-empty line, at every cut into 2 or 3 chunks and byte by byte")
    func ndjsonEverySplit() async throws {
        let expected = [Record(id: 1, name: "é"), Record(id: 2, name: "🚀"), Record(id: 3, name: "c")]
        #expect(try await collect(NDJSONSequence(body(Self.ndjsonSample), of: Record.self)) == expected)
        for chunks in ChunkSplits.all(Self.ndjsonSample) {
            #expect(
                try await collect(NDJSONSequence(body(chunks), of: Record.self)) == expected,
                "chunks \(chunks.map(\.count))")
        }
    }

    @Test("ndjson delivers every record before a bad line, then throws its DecodingError and finishes")
    func ndjsonBadLine() async {
        let text =
            "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n{\"id\":\"three\"}\n{\"id\":4,\"name\":\"d\"}\n"
        let result = await collectUntilError(NDJSONSequence(body(text), of: Record.self))
        #expect(result.elements == [Record(id: 1, name: "a"), Record(id: 2, name: "b")])
        #expect(result.error is DecodingError)
        #expect(result.nextAfterEnd == nil)
    }

    @Test("ndjson treats a line of spaces as a (bad) record, not as blank")
    func ndjsonSpaces() async {
        let result = await collectUntilError(NDJSONSequence(body("{\"id\":1,\"name\":\"a\"}\n   \n"), of: Record.self))
        #expect(result.elements == [Record(id: 1, name: "a")])
        #expect(result.error is DecodingError)
    }

    @Test("ndjson uses the given decoder")
    func ndjsonDecoder() async throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        struct Snake: Decodable, Sendable, Equatable { let userName: String }
        #expect(
            try await collect(NDJSONSequence(body("{\"user_name\":\"x\"}\n"), of: Snake.self, decoder: decoder)) == [
                Snake(userName: "x")
            ])
    }

    @Test("ndjson: a record over the line limit throws lineTooLong")
    func ndjsonLimit() async {
        let result = await collectUntilError(
            NDJSONSequence(body("{\"id\":1,\"name\":\"a\"}\n"), of: Record.self, maximumLineLength: 10))
        #expect(result.elements.isEmpty)
        #expect(result.error as? StreamingError == .lineTooLong(limitBytes: 10))
    }

    // MARK: events

    @Test(
        "events over every cut into 2 or 3 chunks, and byte by byte, are the events of the whole",
        arguments: ServerSentEventParserTests.samples)
    func eventsEverySplit(sample: String) async throws {
        let expected = try parseEvents(sample).events
        for chunks in ChunkSplits.all(sample, threeWay: sample.utf8.count < 100) {
            #expect(
                try await collect(ServerSentEventSequence(body(chunks))) == expected, "chunks \(chunks.map(\.count))")
        }
    }

    @Test("the events iterator exposes the last event id and reconnection time for a reconnecting client")
    func eventsIteratorState() async throws {
        var iterator = ServerSentEventSequence(body("retry: 5\nid: a\ndata: 1\n\nid: b\n\n"), lastEventID: "z")
            .makeAsyncIterator()
        #expect(iterator.lastEventID == "z")
        #expect(try await iterator.next() == ServerSentEvent(id: "a", data: "1", retry: .milliseconds(5)))
        #expect(iterator.lastEventID == "a")
        #expect(try await iterator.next() == nil)
        #expect(iterator.lastEventID == "b")
        #expect(iterator.reconnectionTime == .milliseconds(5))
    }

    @Test("events: a body that breaks ends with its error, and the unfinished block is not dispatched")
    func eventsBodyError() async {
        let result = await collectUntilError(
            ServerSentEventSequence(body([Data("data: a\n\ndata: b\n".utf8)], failingWith: BrokenPipe())))
        #expect(result.elements == [ServerSentEvent(data: "a")])
        #expect(result.error is BrokenPipe)
        #expect(result.nextAfterEnd == nil)
    }

    @Test("events: an event over the size limit throws lineTooLong, then next() is nil")
    func eventsLimit() async {
        let result = await collectUntilError(
            ServerSentEventSequence(body("data: a\n\ndata: 0123456789\n\n"), maximumEventSize: 8))
        #expect(result.elements == [ServerSentEvent(data: "a")])
        #expect(result.error as? StreamingError == .lineTooLong(limitBytes: 8))
        #expect(result.nextAfterEnd == nil)
    }

    // MARK: bytes

    @Test("bytes yields every byte in order, across chunks, skipping empty chunks")
    func bytes() async throws {
        let chunks = [Data([1, 2]), Data(), Data([3]), Data([4, 5, 6])]
        #expect(try await collect(ByteSequence(body(chunks))) == [1, 2, 3, 4, 5, 6])
        #expect(try await collect(ByteSequence(body([]))) == [])
    }

    @Test("bytes ends with the body's error after the bytes before it; then next() is nil")
    func bytesError() async {
        let result = await collectUntilError(ByteSequence(body([Data([7, 8])], failingWith: BrokenPipe())))
        #expect(result.elements == [7, 8])
        #expect(result.error is BrokenPipe)
        #expect(result.nextAfterEnd == nil)
    }

    // MARK: isolation

    @MainActor
    @Test("a @MainActor consumer iterates every view on the main actor")
    func mainActorConsumer() async throws {
        var lines: [String] = []
        for try await line in LineSequence(body(Self.lineSample)) {
            MainActor.assertIsolated()
            lines.append(line)
        }
        #expect(lines.count == 4)
        var records = 0
        for try await _ in NDJSONSequence(body(Self.ndjsonSample), of: Record.self) {
            MainActor.assertIsolated()
            records += 1
        }
        #expect(records == 3)
        var events = 0
        for try await _ in ServerSentEventSequence(body(Self.sseSample)) {
            MainActor.assertIsolated()
            events += 1
        }
        #expect(events == 3)
        var bytes = 0
        for try await _ in ByteSequence(body("abc")) {
            MainActor.assertIsolated()
            bytes += 1
        }
        #expect(bytes == 3)
    }

    @MainActor
    @Test("every view asks its base for chunks with the caller's isolation, never through next()")
    func isolationPassedThrough() async throws {
        let log = IsolationRecordingChunks.Log()
        let chunks = IsolationRecordingChunks(
            chunks: [Data("data: a\n\n".utf8), Data("{\"id\":1,\"name\":\"a\"}\n".utf8)], log: log)
        _ = try await collect(LineSequence(chunks))
        _ = await collectUntilError(NDJSONSequence(chunks, of: Record.self))
        _ = try await collect(ServerSentEventSequence(chunks))
        _ = try await collect(ByteSequence(chunks))
        // Three calls per view (two chunks, then the end), but NDJSON stops at its first (bad) line.
        #expect(log.all.count == 10)
        #expect(log.all.allSatisfy { $0 == "next(isolation: main)" }, "\(log.all)")
    }

    @Test("the views over a Sendable base are Sendable")
    func sendable() {
        func requireSendable<T: Sendable>(_: T) {}
        requireSendable(LineSequence(body("")))
        requireSendable(NDJSONSequence(body(""), of: Record.self))
        requireSendable(ServerSentEventSequence(body("")))
        requireSendable(ByteSequence(body("")))
    }
}
