#if os(Linux)
import Foundation
import Glibc
import NetCore
import Testing

/// The spill file on disk: made close-on-exec and private by the call that opens it, and given back as it is read.
@Suite("Spill file: descriptor and disk use")
struct SpillFileTests {
    /// A directory of the test's own, so that the spill file's descriptor is the only one that points into it.
    static func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appending(path: "netkit-spill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        return directory
    }

    /// The open descriptors of spill files made in `directory`, found through `/proc/self/fd` (the files have no
    /// name any more: their links read `<directory>/netkit-body-… (deleted)`).
    static func spillDescriptors(in directory: URL) -> [Int32] {
        let prefix = directory.path(percentEncoded: false) + "/netkit-body-"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"),
                target.hasPrefix(prefix)
            else { return nil }
            return Int32(entry)
        }
    }

    /// The size and the bytes allocated on disk of the file behind `descriptor`.
    static func usage(of descriptor: Int32) -> (size: Int, allocated: Int) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return (-1, -1) }
        return (Int(status.st_size), Int(status.st_blocks) * 512)
    }

    /// Pushes `count` bytes of the offset pattern in pieces of 10,007 bytes.
    static func push(_ count: Int, from offset: Int, to writer: ResponseBody.Writer) {
        var pushed = 0
        while pushed < count {
            let size = min(10_007, count - pushed)
            #expect(writer.yield(BufferedBodySpillTests.piece(at: offset + pushed, count: size)))
            pushed += size
        }
    }

    /// A consumer that reads exactly as many bytes as asked: what a chunk brings beyond them waits for the next read.
    struct Reader {
        var iterator: ResponseBody.AsyncIterator
        var carry = Data()

        /// Reads exactly `count` bytes (the body goes on) and checks they are the pattern's from `offset`.
        mutating func read(_ count: Int, from offset: Int) async throws {
            var received = carry
            while received.count < count, let chunk = try await iterator.next() { received.append(chunk) }
            carry = received.count > count ? Data(received.dropFirst(count)) : Data()
            #expect(received.prefix(count) == BufferedBodySpillTests.piece(at: offset, count: count))
        }

        /// Whether the body ended with nothing left.
        mutating func isAtEnd() async throws -> Bool {
            carry.isEmpty ? try await iterator.next() == nil : false
        }
    }

    @Test("the descriptor is close-on-exec and the file private (0600) from the call that makes it")
    func closeOnExecFromTheOpen() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let descriptor = try SpillFile.makeDescriptor(in: directory)
        defer { close(descriptor) }
        // Nothing ran between the open and this line: no exec in another thread could have inherited it.
        let flags = fcntl(descriptor, F_GETFD)
        #expect(flags >= 0 && flags & FD_CLOEXEC != 0, "F_GETFD right after the file was made: \(flags)")
        var status = stat()
        #expect(fstat(descriptor, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(status.st_nlink == 0, "the file still has a name")
    }

    @Test("once everything spilled has been read back, the file holds nothing: size 0, no blocks")
    func truncatedAfterReadBack() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (body, writer) = ResponseBody.makeBuffered(
            bufferLimit: 64 * 1024, spillLimit: 8 << 20, spillDirectory: directory, onAbandon: {})
        Self.push(1 << 20, from: 0, to: writer)
        var reader = Reader(iterator: body.makeAsyncIterator())
        try await reader.read(1 << 20, from: 0)
        await writer.spillSettled()
        let descriptor = try #require(Self.spillDescriptors(in: directory).first, "no spill file is open")
        let (size, allocated) = Self.usage(of: descriptor)
        #expect(size == 0 && allocated == 0, "after the read-back the file has \(size) bytes, \(allocated) on disk")
        // The body goes on: the file takes bytes again, from its start.
        Self.push(300_000, from: 1 << 20, to: writer)
        writer.finish()
        try await reader.read(300_000, from: 1 << 20)
        #expect(try await reader.isAtEnd())
    }

    @Test("a consumer that reads back but never catches up leaves on disk about what it has not read")
    func readBackGivenBack() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (body, writer) = ResponseBody.makeBuffered(
            bufferLimit: 64 * 1024, spillLimit: 16 << 20, spillDirectory: directory, onAbandon: {})
        Self.push(8 << 20, from: 0, to: writer)
        var reader = Reader(iterator: body.makeAsyncIterator())
        try await reader.read(7 << 20, from: 0)
        await writer.spillSettled()
        let descriptor = try #require(Self.spillDescriptors(in: directory).first, "no spill file is open")
        let (_, allocated) = Self.usage(of: descriptor)
        // 1 MiB unread, and at most 1 MiB read back but not yet given back (the hole is punched a MiB at a time).
        #expect(allocated <= (2 << 20) + 64 * 1024, "\(allocated) bytes on disk for 1 MiB unread")
        writer.finish()
        try await reader.read(1 << 20, from: 7 << 20)
        #expect(try await reader.isAtEnd())
    }
}
#endif
