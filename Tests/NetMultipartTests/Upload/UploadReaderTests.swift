import Foundation
@testable import NetCore
@testable import NetMultipart
import Testing

@Suite("Upload reader: bytes, lengths and files")
struct UploadReaderTests {
    @Test(
        "memory, file and stream segments come out in order with every buffer size",
        arguments: [1, 2, 3, 7, 64, 4096, 1 << 20])
    func segmentsInOrder(bufferSize: Int) throws {
        let scratch = try ScratchDirectory()
        let fileBytes = patternBytes(70_001)
        let file = try scratch.file("a.bin", fileBytes)
        let streamBytes = patternBytes(999, seed: 9)
        var source = UploadSource(data: Data("head".utf8))
        source.append(.file(try UploadFile(url: file)))
        source.append(.data(Data()))
        source.append(.stream(SingleUseInputStream(InputStream(data: streamBytes)), length: 999))
        source.append(.data(Data("tail".utf8)))

        let body = try readAll(try source.makeReader(), bufferSize: bufferSize)
        #expect(body == Data("head".utf8) + fileBytes + streamBytes + Data("tail".utf8))
        #expect(source.length == Int64(body.count))
    }

    @Test(
        "files of every size, including empty and larger than any single read",
        arguments: [0, 1, 65_535, 65_536, 65_537, 3 * 1024 * 1024 + 17])
    func fileSizes(size: Int) throws {
        let scratch = try ScratchDirectory()
        let bytes = patternBytes(size)
        let source = try UploadSource(fileURL: try scratch.file("f", bytes))
        #expect(source.length == Int64(size))
        #expect(try readAll(try source.makeReader(), bufferSize: 256 * 1024) == bytes)
        // Odd-sized reads cross every piece boundary; a small prime keeps the large file quick to read.
        #expect(try readAll(try source.makeReader(), bufferSize: size > 100_000 ? 4_099 : 7) == bytes)
    }

    @Test("a byte range of a file sends exactly that range")
    func fileRange() throws {
        let scratch = try ScratchDirectory()
        let bytes = patternBytes(10_000)
        let url = try scratch.file("f", bytes)
        let source = UploadSource(segments: [.file(try UploadFile(url: url, offset: 1_000, length: 2_345))])
        #expect(try readAll(try source.makeReader(), bufferSize: 100) == bytes[1_000..<3_345])
        #expect(throws: UploadSourceError.rangeOutsideFile(url, offset: 9_000, length: 1_001, fileSize: 10_000)) {
            try UploadFile(url: url, offset: 9_000, length: 1_001)
        }
    }

    @Test("a missing file, a directory and an unreadable path fail when described")
    func describeChecksTheFile() throws {
        let scratch = try ScratchDirectory()
        let missing = scratch.url.appendingPathComponent("missing.bin")
        #expect(throws: UploadSourceError.fileNotFound(missing)) { try UploadFile(url: missing) }
        #expect(throws: UploadSourceError.notARegularFile(scratch.url)) { try UploadFile(url: scratch.url) }
        let web = URL(string: "https://example.invalid/file.bin")!
        #expect(throws: UploadSourceError.fileNotFound(web)) { try UploadFile(url: web) }
    }

    @Test("a file that changed size between describing and reading is refused before any of it is sent")
    func fileChangedBeforeReading() throws {
        let scratch = try ScratchDirectory()
        let url = try scratch.file("f", patternBytes(1_000))
        let source = try UploadSource(fileURL: url)
        try scratch.append(Data("more".utf8), to: url)
        let reader = try source.makeReader()
        #expect(throws: UploadSourceError.fileSizeChanged(url, expected: 1_000, actual: 1_004)) {
            try readAll(reader, bufferSize: 64)
        }
        // The error sticks and the descriptor is gone.
        #expect(throws: UploadSourceError.fileSizeChanged(url, expected: 1_000, actual: 1_004)) {
            try readAll(reader, bufferSize: 64)
        }
        #expect(scratch.openDescriptorCount() == 0)
    }

    @Test("a file truncated while being read fails instead of ending early")
    func fileShrankMidway() throws {
        let scratch = try ScratchDirectory()
        let url = try scratch.file("f", patternBytes(200_000))
        let reader = try UploadSource(fileURL: url).makeReader()
        #expect(try readPrefix(reader, count: 50_000).count == 50_000)
        try scratch.truncate(url, to: 60_000)
        #expect(throws: UploadSourceError.fileSizeChanged(url, expected: 200_000, actual: 60_000)) {
            try readAll(reader, bufferSize: 64 * 1024)
        }
        #expect(scratch.openDescriptorCount() == 0)
    }

    @Test("a file that grew while being read fails at its end instead of sending a stale length")
    func fileGrewMidway() throws {
        let scratch = try ScratchDirectory()
        let url = try scratch.file("f", patternBytes(100_000))
        let reader = try UploadSource(fileURL: url).makeReader()
        #expect(try readPrefix(reader, count: 10).count == 10)
        try scratch.append(patternBytes(5), to: url)
        #expect(throws: UploadSourceError.fileSizeChanged(url, expected: 100_000, actual: 100_005)) {
            try readAll(reader, bufferSize: 64 * 1024)
        }
        #expect(scratch.openDescriptorCount() == 0)
    }

    @Test("a file deleted after it was described fails when the reader reaches it")
    func fileVanished() throws {
        let scratch = try ScratchDirectory()
        let url = try scratch.file("f", patternBytes(10))
        let source = try UploadSource(fileURL: url)
        try FileManager.default.removeItem(at: url)
        let reader = try source.makeReader()
        #expect(throws: UploadSourceError.fileNotFound(url)) { try readAll(reader, bufferSize: 4) }
    }

    @Test(
        "a stream shorter or longer than declared fails instead of breaking Content-Length",
        arguments: [(declared: 10, actual: 9), (declared: 10, actual: 11), (declared: 0, actual: 1)])
    func streamLengthMismatch(declared: Int, actual: Int) throws {
        let source = UploadSource(stream: InputStream(data: patternBytes(actual)), length: Int64(declared))
        let reported = Int64(actual < declared ? actual : declared + 1)
        #expect(throws: UploadSourceError.streamLengthMismatch(expected: Int64(declared), actual: reported)) {
            try readAll(try source.makeReader(), bufferSize: 3)
        }
    }

    @Test("a stream of unknown length is read to its end and makes the length unknown")
    func streamOfUnknownLength() throws {
        let bytes = patternBytes(100_000)
        let source = UploadSource(stream: InputStream(data: bytes), length: nil)
        #expect(source.length == nil)
        #expect(try readAll(try source.makeReader(), bufferSize: 4096) == bytes)
    }

    @Test("a stream that cannot be opened fails with a stream error")
    func streamFailsToOpen() throws {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)")
        let stream = try #require(InputStream(url: missing))
        let source = UploadSource(stream: stream, length: nil)
        let error = #expect(throws: UploadSourceError.self) { try readAll(try source.makeReader(), bufferSize: 8) }
        guard case .streamFailed = error else {
            Issue.record("expected streamFailed, got \(String(describing: error))")
            return
        }
    }

    @Test("memory and file bodies are replayable: every reader gives the same bytes")
    func replayable() throws {
        let scratch = try ScratchDirectory()
        var source = UploadSource(data: Data("a".utf8))
        source.append(.file(try UploadFile(url: try scratch.file("f", patternBytes(100_000)))))
        #expect(source.isReplayable)
        let first = try readAll(try source.makeReader(), bufferSize: 1000)
        let second = try readAll(try source.makeReader(), bufferSize: 333)
        #expect(first == second)
        #expect(first.count == 100_001)
    }

    @Test("a stream makes a body one-shot: the second reader is refused")
    func streamIsOneShot() throws {
        var source = UploadSource(data: Data("a".utf8))
        source.append(.stream(SingleUseInputStream(InputStream(data: Data("b".utf8))), length: 1))
        #expect(!source.isReplayable)
        #expect(try readAll(try source.makeReader(), bufferSize: 8) == Data("ab".utf8))
        #expect(throws: UploadSourceError.streamAlreadyConsumed) { try source.makeReader() }
    }

    @Test("reading after close throws, and close is idempotent")
    func closeStopsReading() throws {
        let reader = try UploadSource(data: patternBytes(100)).makeReader()
        #expect(try readPrefix(reader, count: 10).count == 10)
        reader.close()
        reader.close()
        #expect(throws: UploadSourceError.readerClosed) { try readPrefix(reader, count: 10) }
        #expect(reader.bytesRead == 10)
    }

    @Test("an empty buffer reads nothing and does not end the body")
    func emptyBuffer() throws {
        let reader = try UploadSource(data: patternBytes(5)).makeReader()
        #expect(try reader.read(into: UnsafeMutableRawBufferPointer(start: nil, count: 0)) == 0)
        #expect(try readAll(reader, bufferSize: 2) == patternBytes(5))
    }
}
