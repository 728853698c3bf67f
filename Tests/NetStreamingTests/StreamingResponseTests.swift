import Foundation
import NetCore
import Testing
import NetStreaming

/// Waits for `operation`, failing the test instead of hanging if it takes longer than `limit`.
func within<T: Sendable>(_ limit: Duration = .seconds(10), _ operation: @escaping @Sendable () async throws -> T)
    async throws -> T
{
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let result = try await group.next(), let value = result else {
            Issue.record("timed out after \(limit)")
            throw CancellationError()
        }
        return value
    }
}

@Suite("StreamingResponse")
struct StreamingResponseTests {
    @Test("status, headers and chunks are what the response was made with; chunks arrive as sent")
    func basics() async throws {
        let response = StreamingResponse(
            statusCode: 206, headers: ["X-A": "b"], body: body([Data("ab".utf8), Data("c".utf8)]))
        #expect(response.statusCode == 206)
        #expect(response.headers == ["X-A": "b"])
        #expect(try await collect(response.chunks) == [Data("ab".utf8), Data("c".utf8)])
    }

    @Test("lines, ndjson, events and bytes read the body")
    func views() async throws {
        let lines = StreamingResponse(statusCode: 200, headers: [:], body: body("a\r\n\nb"))
        #expect(try await collect(lines.lines()) == ["a", "b"])
        let records = StreamingResponse(statusCode: 200, headers: [:], body: body("{\"id\":1,\"name\":\"x\"}\n"))
        #expect(try await collect(records.ndjson(as: Record.self)) == [Record(id: 1, name: "x")])
        let events = StreamingResponse(statusCode: 200, headers: [:], body: body("id: 1\ndata: d\n\n"))
        #expect(try await collect(events.events()) == [ServerSentEvent(id: "1", data: "d")])
        let resumed = StreamingResponse(statusCode: 200, headers: [:], body: body("data: d\n\n"))
        #expect(try await collect(resumed.events(lastEventID: "7")) == [ServerSentEvent(id: "7", data: "d")])
        let bytes = StreamingResponse(statusCode: 200, headers: [:], body: body([Data([1]), Data([2, 3])]))
        #expect(try await collect(bytes.bytes) == [1, 2, 3])
    }

    @Test("the limits given to the views apply")
    func limits() async {
        let response = StreamingResponse(statusCode: 200, headers: [:], body: body("123456\n"))
        #expect(
            await collectUntilError(response.lines(maximumLineLength: 3)).error as? StreamingError
                == .lineTooLong(limitBytes: 3))
        let events = StreamingResponse(statusCode: 200, headers: [:], body: body("data: 123456\n\n"))
        #expect(
            await collectUntilError(events.events(maximumEventSize: 3)).error as? StreamingError
                == .lineTooLong(limitBytes: 3))
    }

    @Test("the body can be iterated once: a second view after the first sees nothing")
    func iteratedOnce() async throws {
        let response = StreamingResponse(statusCode: 200, headers: [:], body: body("a\nb\n"))
        #expect(try await collect(response.lines()) == ["a", "b"])
        #expect(try await collect(response.bytes) == [])
    }

    // MARK: The bytes initializer (EKNetwork mocks)

    @Test("a response made from single bytes reads as the same lines, records and events")
    func fromBytes() async throws {
        func byteStream(_ text: String) -> AsyncThrowingStream<UInt8, any Error> {
            AsyncThrowingStream { continuation in
                for byte in text.utf8 { continuation.yield(byte) }
                continuation.finish()
            }
        }
        let text = StreamViewTests.lineSample
        let lines = StreamingResponse(statusCode: 200, headers: [:], bytes: byteStream(text))
        #expect(try await collect(lines.lines()) == ["première", "zweite 🚀", "  ", "last é"])
        let records = StreamingResponse(statusCode: 200, headers: [:], bytes: byteStream(StreamViewTests.ndjsonSample))
        #expect(try await collect(records.ndjson(as: Record.self)).map(\.id) == [1, 2, 3])
        let events = StreamingResponse(statusCode: 200, headers: [:], bytes: byteStream(StreamViewTests.sseSample))
        #expect(try await collect(events.events()) == (try parseEvents(StreamViewTests.sseSample).events))
        let bytes = StreamingResponse(statusCode: 200, headers: [:], bytes: byteStream(text))
        #expect(try await collect(bytes.bytes) == Array(text.utf8))
        let chunks = try await collect(StreamingResponse(statusCode: 200, headers: [:], bytes: byteStream(text)).chunks)
        #expect(chunks.allSatisfy { !$0.isEmpty })
        #expect(Data(chunks.joined()) == Data(text.utf8))
    }

    @Test("a large byte stream arrives whole, in chunks of at most 64 KiB")
    func fromManyBytes() async throws {
        let count = 150_000
        let source = AsyncThrowingStream<UInt8, any Error> { continuation in
            for index in 0..<count { continuation.yield(UInt8(truncatingIfNeeded: index)) }
            continuation.finish()
        }
        let response = StreamingResponse(statusCode: 200, headers: [:], bytes: source)
        var total = 0
        var mismatch = false
        for try await chunk in response.chunks {
            #expect(chunk.count <= 64 * 1024)
            for (offset, byte) in chunk.enumerated() where byte != UInt8(truncatingIfNeeded: total + offset) {
                mismatch = true
            }
            total += chunk.count
        }
        #expect(total == count)
        #expect(!mismatch)
    }

    @Test("a byte stream that fails ends the views with its error, never cleanly")
    func fromBytesFailing() async {
        let source = AsyncThrowingStream<UInt8, any Error> { continuation in
            for byte in "a\nb".utf8 { continuation.yield(byte) }
            continuation.finish(throwing: BrokenPipe())
        }
        let result = await collectUntilError(StreamingResponse(statusCode: 200, headers: [:], bytes: source).lines())
        #expect(result.elements == ["a"])
        #expect(result.error is BrokenPipe)
        #expect(result.nextAfterEnd == nil)
    }

    @Test("a reader waiting on a live byte stream gets each line as soon as its bytes arrive")
    func fromBytesLive() async throws {
        let (source, continuation) = AsyncThrowingStream<UInt8, any Error>.makeStream()
        let response = StreamingResponse(statusCode: 200, headers: [:], bytes: source)
        var lines = response.lines().makeAsyncIterator()
        for byte in "first\n".utf8 { continuation.yield(byte) }
        #expect(try await lines.next() == "first")
        for byte in "second\nthi".utf8 { continuation.yield(byte) }
        #expect(try await lines.next() == "second")
        for byte in "rd".utf8 { continuation.yield(byte) }
        continuation.finish()
        #expect(try await lines.next() == "third")
        #expect(try await lines.next() == nil)
    }

    @Test("cancelling the reading task ends the views (cleanly or with CancellationError) and the source byte stream")
    func fromBytesCancelled() async throws {
        let (source, continuation) = AsyncThrowingStream<UInt8, any Error>.makeStream()
        let (terminated, terminatedSignal) = AsyncStream<Void>.makeStream()
        continuation.onTermination = { _ in
            terminatedSignal.yield()
            terminatedSignal.finish()
        }
        let (started, startedSignal) = AsyncStream<Void>.makeStream()
        let reader = Task {
            let response = StreamingResponse(statusCode: 200, headers: [:], bytes: source)
            var lines = response.lines().makeAsyncIterator()
            let first = try await lines.next()
            startedSignal.yield()
            return (first, await Result { try await lines.next() })
        }
        for byte in "one\n".utf8 { continuation.yield(byte) }
        for await _ in started { break }
        reader.cancel()
        let (first, second) = try await within { try await reader.value }
        #expect(first == "one")
        switch second {
        case .success(let line): #expect(line == nil)
        case .failure(let error): #expect(error is CancellationError)
        }
        try await within { for await _ in terminated { break } }
    }

    @Test("dropping an unread response made from bytes ends the source byte stream")
    func fromBytesDropped() async throws {
        let (source, continuation) = AsyncThrowingStream<UInt8, any Error>.makeStream()
        let (terminated, terminatedSignal) = AsyncStream<Void>.makeStream()
        continuation.onTermination = { _ in
            terminatedSignal.yield()
            terminatedSignal.finish()
        }
        do {
            let response = StreamingResponse(statusCode: 200, headers: [:], bytes: source)
            continuation.yield(UInt8(ascii: "x"))
            var bytes = response.bytes.makeAsyncIterator()
            #expect(try await bytes.next() == UInt8(ascii: "x"))
        }
        try await within { for await _ in terminated { break } }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
