#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import CNetKitFileSync
import NetCore
import NetKitDigest

/// The file a download writes into until it is complete: it only carries out what ``DownloadStateMachine`` decides.
///
/// Owned by one download call and used from its task alone, so it is not `Sendable`. Bytes are written at the end,
/// in order; ``length`` counts only bytes a `write` call reported written, so after a failure (a full disk) the file
/// still holds a prefix of the resource, and the state saved says how long.
final class PartialFile {
    /// Why a file operation failed.
    enum Failure: Error {
        /// The disk (or the simulated capacity) took no more bytes.
        case full
        /// Another error: what was done and the system's words.
        case failed(operation: String, reason: String)
    }

    /// How many newly written bytes make the file start writing them to the disk (see ``writtenBack``).
    static let writebackStep: Int64 = 8 << 20

    let url: URL
    private(set) var length: Int64
    /// Where the disk writes started so far end: every ``writebackStep`` bytes appended, the file asks the kernel to
    /// start writing them (Linux; elsewhere the final ``sync()`` writes all). Without it the page cache holds the
    /// whole download dirty and the `fsync` before the move waits for all of it: about a third of a 1 GiB
    /// download's time on loopback.
    private(set) var writtenBack: Int64
    private let descriptor: Int32
    private let capacity: Int64?
    private var isClosed = false

    /// Opens (or creates, mode 0644) and locks the file at `url`; `capacity` makes it act full past that many bytes.
    /// The lock (`flock`) goes with the descriptor: closing it, or the process ending, releases it.
    init(url: URL, capacity: Int64?) throws(Failure) {
        self.url = url
        self.capacity = capacity
        let path = url.path(percentEncoded: false)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .failed(operation: "open", reason: describe(errno)) }
        // Two downloads writing one partial file would interleave their bytes: the second is refused (after a second
        // at most, in case the holder is a process being started that has not closed its copy yet).
        if let code = FileLock.acquire(descriptor) {
            _ = closeDescriptor(descriptor)
            throw .failed(
                operation: "lock",
                reason: code == EWOULDBLOCK
                    ? "another download is writing to this file; wait for it, or give this one another destination"
                    : describe(code))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = describe(errno)
            _ = closeDescriptor(descriptor)
            throw .failed(operation: "read the length of", reason: reason)
        }
        self.descriptor = descriptor
        self.length = Int64(status.st_size)
        self.writtenBack = self.length
    }

    deinit {
        close()
    }

    /// Cuts the file to `offset` bytes (a no-op at its length).
    func cut(to offset: Int64) throws(Failure) {
        guard offset != length else { return }
        guard ftruncate(descriptor, off_t(offset)) == 0 else {
            throw .failed(operation: "truncate", reason: describe(errno))
        }
        length = offset
        writtenBack = min(writtenBack, offset)
    }

    /// Appends `bytes`; on a failure, ``length`` counts what was written before it.
    func append(_ bytes: Data) throws(Failure) {
        var written = 0
        while written < bytes.count {
            var count = bytes.count - written
            if let capacity {
                count = Int(min(Int64(count), max(0, capacity - length)))
                guard count > 0 else { throw .full }
            }
            let result = bytes.withUnsafeBytes { buffer in
                pwrite(descriptor, buffer.baseAddress! + written, count, off_t(length))
            }
            if result < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == ENOSPC || code == EDQUOT { throw .full }
                throw .failed(operation: "write", reason: describe(code))
            }
            written += result
            length += Int64(result)
        }
        if length - writtenBack >= Self.writebackStep {
            // A failure here costs only speed: the `fsync` in `sync()` writes what is left and reports a real error.
            _ = netkit_start_writeback(descriptor, writtenBack, length - writtenBack)
            writtenBack = length
        }
    }

    /// Flushes the file's bytes to the disk, so that the rename that follows never exposes a file whose bytes a
    /// power cut could lose.
    func sync() throws(Failure) {
        guard fsync(descriptor) == 0 else { throw .failed(operation: "flush", reason: describe(errno)) }
    }

    /// The SHA-256 of the whole file, read a mebibyte at a time.
    func sha256() throws(Failure) -> [UInt8] {
        var hasher = SHA256()
        let size = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while offset < length {
            let count = pread(descriptor, buffer.baseAddress!, Int(min(Int64(size), length - offset)), off_t(offset))
            if count < 0 {
                if errno == EINTR { continue }
                throw .failed(operation: "read", reason: describe(errno))
            }
            guard count > 0 else { throw .failed(operation: "read", reason: "the file is shorter than was written") }
            hasher.update(buffer: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            offset += Int64(count)
        }
        return hasher.finalize()
    }

    /// Closes the file; later calls do nothing.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = closeDescriptor(descriptor)
    }

    /// Moves the file to `destination` in one rename (replacing what is there), still locked so that no other
    /// download can open the partial file in between, then flushes the directory so that the rename itself survives
    /// a power cut, and closes the file.
    func move(to destination: URL) throws(Failure) {
        defer { close() }
        let from = url.path(percentEncoded: false)
        let to = destination.path(percentEncoded: false)
        guard rename(from, to) == 0 else { throw .failed(operation: "move the download to", reason: describe(errno)) }
        let directory = open(destination.deletingLastPathComponent().path(percentEncoded: false), O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            _ = closeDescriptor(directory)
        }
    }
}

/// `strerror(3)` as text.
private func describe(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// `close(2)`, named apart from ``PartialFile/close()`` which would shadow it inside the class.
private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
