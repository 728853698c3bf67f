import Foundation
@testable import NetCore
@testable import NetMultipart
import Testing

/// Descriptor hygiene, counted in `/proc/self/fd` (Linux).
@Suite("Upload reader: no descriptor leaks", .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd")))
struct UploadDescriptorTests {
    func threeFiles(in scratch: ScratchDirectory) throws -> UploadSource {
        var source = UploadSource()
        for index in 0..<3 {
            source.append(.data(Data("--\(index)--".utf8)))
            source.append(
                .file(try UploadFile(url: try scratch.file("f\(index)", patternBytes(300_000, seed: UInt8(index))))))
        }
        return source
    }

    @Test("describing files opens nothing; reading opens one file at a time and closes each at its end")
    func oneAtATime() throws {
        let scratch = try ScratchDirectory()
        let source = try threeFiles(in: scratch)
        #expect(scratch.openDescriptorCount() == 0)
        let reader = try source.makeReader()
        #expect(scratch.openDescriptorCount() == 0)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { buffer.deallocate() }
        var peak = 0
        for _ in 0..<1_000 {
            let count = try reader.read(into: buffer)
            peak = max(peak, scratch.openDescriptorCount())
            if count == 0 { break }
        }
        #expect(peak == 1)
        #expect(scratch.openDescriptorCount() == 0)
        #expect(!reader.hasOpenResource)
    }

    @Test("close() mid-file releases the descriptor")
    func closeMidway() throws {
        let scratch = try ScratchDirectory()
        let reader = try threeFiles(in: scratch).makeReader()
        _ = try readPrefix(reader, count: 100_000)
        #expect(scratch.openDescriptorCount() == 1)
        reader.close()
        #expect(scratch.openDescriptorCount() == 0)
    }

    @Test("dropping a reader mid-file releases the descriptor")
    func dropMidway() throws {
        let scratch = try ScratchDirectory()
        let source = try threeFiles(in: scratch)
        do {
            let reader = try source.makeReader()
            _ = try readPrefix(reader, count: 100_000)
            #expect(scratch.openDescriptorCount() == 1)
        }
        #expect(scratch.openDescriptorCount() == 0)
    }

    @Test("a failure mid-way releases the descriptor")
    func failureMidway() throws {
        let scratch = try ScratchDirectory()
        let source = try threeFiles(in: scratch)
        let reader = try source.makeReader()
        _ = try readPrefix(reader, count: 100_000)
        try scratch.truncate(scratch.url.appendingPathComponent("f0"), to: 10)
        #expect(throws: UploadSourceError.self) { try readAll(reader, bufferSize: 64 * 1024) }
        #expect(scratch.openDescriptorCount() == 0)
    }

    @Test("streams not yet reached are closed when the reader is closed")
    func unreachedStreamsAreClosed() throws {
        let scratch = try ScratchDirectory()
        let url = try scratch.file("s", patternBytes(1000))
        let stream = try #require(InputStream(url: url))
        var source = UploadSource(data: Data("x".utf8))
        source.append(.stream(SingleUseInputStream(stream), length: 1000))
        let reader = try source.makeReader()
        #expect(try readPrefix(reader, count: 1).count == 1)
        reader.close()
        #expect(scratch.openDescriptorCount() == 0)
    }
}
