import CNetKitFileSync
import Foundation
import NetCore
import NetKitDigest
import Testing

@testable import NetStreaming

/// The download's decisions, without I/O: what each request asks for and what each answer does to the bytes on disk.
@Suite("Download decisions")
struct DownloadStateMachineTests {
    static let partial = URL(filePath: "/tmp/file.partial")

    static func head(_ status: Int, _ fields: [(String, String)]) -> HTTPResponseHead {
        HTTPResponseHead(statusCode: status, headerFields: try! HTTPHeaderFields(fields.map { ($0.0, $0.1) }))
    }

    /// A machine that learnt from a whole, resumable 200 of 1,000 bytes with ETag "v1".
    static func resumable() throws -> DownloadStateMachine {
        var machine = DownloadStateMachine(state: DownloadResumeState(partialFile: partial))
        let verdict = try machine.judge(
            head(200, [("ETag", "\"v1\""), ("Accept-Ranges", "bytes"), ("Content-Length", "1000")]),
            asked: .whole, checksDigests: true)
        #expect(verdict == .write(from: 0, length: 1000, partSHA256: nil))
        return machine
    }

    @Test("nothing on disk, or no way to resume: the whole resource")
    func asksWhole() throws {
        let fresh = DownloadStateMachine(state: DownloadResumeState(partialFile: Self.partial))
        #expect(fresh.ask(bytesOnDisk: 0) == .whole)
        #expect(fresh.ask(bytesOnDisk: 10) == .whole)
        #expect(try Self.resumable().ask(bytesOnDisk: 0) == .whole)
        #expect(try Self.resumable().ask(bytesOnDisk: 400) == .rest(from: 400, ifRange: "\"v1\""))
    }

    @Test(
        "a 200 keeps only a strong validator and a range unit it can use",
        arguments: [
            ([("ETag", "\"v1\""), ("Accept-Ranges", "bytes")], DownloadValidator.entityTag("\"v1\""), true),
            ([("ETag", "W/\"v1\""), ("Accept-Ranges", "bytes")], nil, true),
            (
                [("ETag", "W/\"v1\""), ("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT"), ("Accept-Ranges", "Bytes")],
                .lastModified("Sun, 06 Nov 1994 08:49:37 GMT"), true
            ),
            ([("ETag", "\"v1\"")], .entityTag("\"v1\""), false),
            ([("ETag", "\"v1\""), ("Accept-Ranges", "none")], .entityTag("\"v1\""), false),
            ([("ETag", "\"v1\""), ("Accept-Ranges", "none, bytes")], .entityTag("\"v1\""), true),
        ] as [([(String, String)], DownloadValidator?, Bool)])
    func wholeResponse(fields: [(String, String)], validator: DownloadValidator?, ranges: Bool) throws {
        var machine = DownloadStateMachine(state: DownloadResumeState(partialFile: Self.partial))
        _ = try machine.judge(Self.head(200, fields), asked: .whole, checksDigests: true)
        #expect(machine.state.validator == validator)
        #expect(machine.state.acceptsRanges == ranges)
        #expect(machine.state.isResumable == (validator != nil && ranges))
    }

    @Test("a 200 in a content coding the transport undid is written, but never resumed nor measured")
    func codedWhole() throws {
        var machine = DownloadStateMachine(state: DownloadResumeState(partialFile: Self.partial))
        let verdict = try machine.judge(
            Self.head(
                200,
                [("ETag", "\"v1\""), ("Accept-Ranges", "bytes"), ("Content-Encoding", "gzip"), ("Content-Length", "9")]),
            asked: .whole, checksDigests: true)
        #expect(verdict == .write(from: 0, length: nil, partSHA256: nil))
        #expect(!machine.state.isResumable)
        #expect(machine.state.totalBytes == nil)
    }

    @Test("a 206 that continues the file appends, with its Content-Digest")
    func appends() throws {
        var machine = try Self.resumable()
        let digest = SHA256.hash(Data("x".utf8))
        let verdict = try machine.judge(
            Self.head(
                206,
                [
                    ("Content-Range", "bytes 400-999/1000"), ("ETag", "\"v1\""),
                    ("Content-Digest", "sha-256=:\(Data(digest).base64EncodedString()):"),
                ]),
            asked: .rest(from: 400, ifRange: "\"v1\""), checksDigests: true)
        #expect(verdict == .write(from: 400, length: 600, partSHA256: digest))
        #expect(machine.state.totalBytes == 1000)
    }

    @Test(
        "a 206 that does not continue this version of the file makes the machine forget it and ask for the whole",
        arguments: [
            [("Content-Range", "bytes 300-999/1000"), ("ETag", "\"v1\"")],  // another start
            [("Content-Range", "bytes 400-999/2000"), ("ETag", "\"v1\"")],  // another length
            [("Content-Range", "bytes 400-999/1000"), ("ETag", "\"v2\"")],  // another version
        ])
    func mismatchedPart(fields: [(String, String)]) throws {
        var machine = try Self.resumable()
        let verdict = try machine.judge(
            Self.head(206, fields), asked: .rest(from: 400, ifRange: "\"v1\""), checksDigests: true)
        #expect(verdict == .askAgain)
        #expect(machine.ask(bytesOnDisk: 400) == .whole)
    }

    @Test("a 206 to a request for the whole, or without a Content-Range, is refused")
    func unusablePart() throws {
        var machine = try Self.resumable()
        #expect(throws: DownloadError.self) {
            try machine.judge(
                Self.head(206, [("Content-Range", "bytes 0-9/1000")]), asked: .whole, checksDigests: true)
        }
        #expect(throws: DownloadError.self) {
            try machine.judge(Self.head(206, []), asked: .rest(from: 400, ifRange: "\"v1\""), checksDigests: true)
        }
    }

    @Test("a 416 naming the length on disk completes the download; any other starts over")
    func unsatisfiable() throws {
        var complete = try Self.resumable()
        #expect(
            complete.judgeUnsatisfiable(contentRange: "bytes */1000", asked: .rest(from: 1000, ifRange: "\"v1\""))
                == .complete)
        var other = try Self.resumable()
        #expect(
            other.judgeUnsatisfiable(contentRange: "bytes */500", asked: .rest(from: 1000, ifRange: "\"v1\""))
                == .askAgain)
        #expect(other.ask(bytesOnDisk: 1000) == .whole)
        var missing = try Self.resumable()
        #expect(missing.judgeUnsatisfiable(contentRange: nil, asked: .rest(from: 1000, ifRange: "\"v1\"")) == .askAgain)
        var unasked = try Self.resumable()
        #expect(unasked.judgeUnsatisfiable(contentRange: "bytes */0", asked: .whole) == .askAgain)
    }

    @Test("complete at the announced length; short asks for more; longer fails")
    func completion() throws {
        let machine = try Self.resumable()
        #expect(try machine.isComplete(bytesOnDisk: 1000))
        #expect(try !machine.isComplete(bytesOnDisk: 999))
        #expect(throws: DownloadError.self) { try machine.isComplete(bytesOnDisk: 1001) }
        let unknown = DownloadStateMachine(state: DownloadResumeState(partialFile: Self.partial))
        #expect(try unknown.isComplete(bytesOnDisk: 12))
    }

    @Test("a Repr-Digest is kept across resumes; a 206 announcing another one is another version")
    func announcedDigest() throws {
        let whole = Data(SHA256.hash(Data("whole".utf8))).base64EncodedString()
        let other = Data(SHA256.hash(Data("other".utf8))).base64EncodedString()
        var machine = DownloadStateMachine(state: DownloadResumeState(partialFile: Self.partial))
        _ = try machine.judge(
            Self.head(200, [("ETag", "\"v1\""), ("Accept-Ranges", "bytes"), ("Repr-Digest", "sha-256=:\(whole):")]),
            asked: .whole, checksDigests: true)
        #expect(machine.state.announcedSHA256 == SHA256.hex(SHA256.hash(Data("whole".utf8))))
        let verdict = try machine.judge(
            Self.head(206, [("Content-Range", "bytes 4-9/10"), ("Repr-Digest", "sha-256=:\(other):")]),
            asked: .rest(from: 4, ifRange: "\"v1\""), checksDigests: true)
        #expect(verdict == .askAgain)
    }
}

@Suite("Content-Range and digest fields")
struct DownloadFieldTests {
    @Test(
        "Content-Range parses RFC 9110's bytes grammar and nothing else",
        arguments: [
            ("bytes 0-499/1234", 0...499, 1234),
            ("BYTES 10-10/*", 10...10, nil),
            ("bytes */1234", nil, 1234),
        ] as [(String, ClosedRange<Int64>?, Int64?)])
    func parses(value: String, part: ClosedRange<Int64>?, length: Int64?) throws {
        let range = try #require(ContentRange(value))
        #expect(range.part == part)
        #expect(range.completeLength == length)
    }

    @Test(
        "malformed Content-Range values are refused",
        arguments: [
            "", "bytes", "bytes 5-4/10", "bytes 0-10/10", "bytes */*", "items 0-1/2", "bytes -1-2/3", "bytes 0-1",
            "bytes 1 -2/3", "bytes 0-99999999999999999999/1",
        ])
    func refuses(value: String) {
        #expect(ContentRange(value) == nil)
    }

    @Test("the sha-256 member of a digest field, and nothing from others or malformed ones")
    func digests() {
        let digest = SHA256.hash(Data("abc".utf8))
        let base64 = Data(digest).base64EncodedString()
        #expect(DigestFields.sha256(in: "sha-256=:\(base64):") == digest)
        #expect(DigestFields.sha256(in: "sha-512=:AAAA:, sha-256=:\(base64):") == digest)
        #expect(DigestFields.sha256(in: "sha-512=:AAAA:") == nil)
        #expect(DigestFields.sha256(in: "sha-256=\(base64)") == nil)
        #expect(DigestFields.sha256(in: "sha-256=:AAAA:") == nil)
        #expect(DigestFields.sha256(in: "SHA-256=:\(base64):") == nil)
    }
}

@Suite("The partial file")
struct PartialFileTests {
    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netkit-partial-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("a second download of the same partial file is refused while the first holds it, and allowed after")
    func locked() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("file.partial")
        let first = try PartialFile(url: url, capacity: nil)
        #expect {
            _ = try PartialFile(url: url, capacity: nil)
        } throws: { error in
            guard case PartialFile.Failure.failed(let operation, let reason) = error else { return false }
            return operation == "lock" && reason.contains("another download")
        }
        first.close()
        _ = try PartialFile(url: url, capacity: nil)
    }

    @Test("a full disk keeps the bytes written before it, counted exactly")
    func full() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("file.partial")
        let file = try PartialFile(url: url, capacity: 10)
        try file.append(Data(repeating: 1, count: 6))
        #expect(throws: PartialFile.Failure.self) { try file.append(Data(repeating: 2, count: 6)) }
        #expect(file.length == 10)
        file.close()
        #expect(try Data(contentsOf: url) == Data(repeating: 1, count: 6) + Data(repeating: 2, count: 4))
    }

    @Test("moved into place in one rename, its digest read back in pieces")
    func moved() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("file.partial")
        let destination = directory.appendingPathComponent("file")
        let bytes = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let file = try PartialFile(url: url, capacity: nil)
        try file.append(bytes)
        #expect(try file.sha256() == SHA256.hash(bytes))
        try file.move(to: destination)
        #expect(try Data(contentsOf: destination) == bytes)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("starts writing to the disk every 8 MiB as it goes, and starts again below a cut")
    func writtenBackAsItGoes() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try PartialFile(url: directory.appendingPathComponent("file.partial"), capacity: nil)
        let mebibyte = Data(count: 1 << 20)
        for _ in 0..<20 { try file.append(mebibyte) }
        #expect(file.writtenBack == 16 << 20)
        try file.cut(to: 4 << 20)
        #expect(file.writtenBack == 4 << 20)
        for _ in 0..<7 { try file.append(mebibyte) }
        #expect(file.writtenBack == 4 << 20)
        try file.append(mebibyte)
        #expect(file.writtenBack == 12 << 20)
        #expect(file.length == 12 << 20)
    }

    #if os(Linux)
    @Test("the writeback reaches the kernel: done for an open file, refused for a descriptor that is not open")
    func writebackReachesTheKernel() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("file")
        try Data(count: 1 << 20).write(to: url)
        let handle = try FileHandle(forUpdating: url)
        defer { try? handle.close() }
        #expect(netkit_start_writeback(handle.fileDescriptor, 0, 1 << 20) == 0)
        #expect(netkit_start_writeback(-1, 0, 1 << 20) == EBADF)
    }
    #endif
}
