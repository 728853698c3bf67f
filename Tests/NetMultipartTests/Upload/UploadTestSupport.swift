import Foundation
@testable import NetCore
@testable import NetMultipart

/// A directory of its own per test, removed when the value is dropped, so parallel tests
/// never see each other's files and descriptor checks can look for this directory alone.
final class ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("netkit-upload-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `data` to a new file named `name` and returns its URL.
    func file(_ name: String, _ data: Data) throws -> URL {
        let file = url.appendingPathComponent(name)
        try data.write(to: file)
        return file
    }

    /// Appends `data` to an existing file.
    func append(_ data: Data, to file: URL) throws {
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        try handle.write(contentsOf: data)
        try handle.close()
    }

    /// Cuts an existing file down to `length` bytes.
    func truncate(_ file: URL, to length: UInt64) throws {
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: length)
        try handle.close()
    }

    /// How many of this process's descriptors point into this directory (Linux: `/proc/self/fd`).
    ///
    /// Counting only our own directory keeps the check exact while other tests open and close
    /// descriptors in parallel.
    func openDescriptorCount() -> Int {
        let fdDirectory = "/proc/self/fd"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: fdDirectory) else { return -1 }
        let prefix = url.resolvingSymlinksInPath().path
        return entries.count { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdDirectory)/\(entry)")
            else {
                return false
            }
            return target.hasPrefix(prefix) || target.hasPrefix(url.path)
        }
    }
}

/// Bytes that differ from offset to offset (a 251-byte cycle, prime so it never lines up with
/// buffer or piece sizes), so a misplaced or repeated piece cannot go unnoticed. Built by
/// doubling, so megabytes cost milliseconds in debug builds.
func patternBytes(_ count: Int, seed: UInt8 = 1) -> Data {
    var data = Data((0..<251).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    while data.count < count { data.append(data) }
    return data.prefix(count)
}

/// Reads a whole body with a buffer of `bufferSize` bytes; bounded by `limit` calls.
func readAll(_ reader: UploadReader, bufferSize: Int, limit: Int = 10_000_000) throws -> Data {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 1)
    defer { buffer.deallocate() }
    var body = Data()
    for _ in 0..<limit {
        let count = try reader.read(into: buffer)
        if count == 0 { return body }
        body.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    }
    throw ReadLimitExceeded()
}

/// Reads at most `count` bytes (in one buffer) so a test can stop mid-body.
func readPrefix(_ reader: UploadReader, count: Int) throws -> Data {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
    defer { buffer.deallocate() }
    let read = try reader.read(into: buffer)
    return Data(UnsafeRawBufferPointer(rebasing: buffer[..<read]))
}

struct ReadLimitExceeded: Error {}
