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
import Synchronization

/// A nameless temporary file that holds the bytes of a body its consumer has not caught up with.
///
/// The file is made by one `open` call with `O_CREAT | O_EXCL | O_CLOEXEC` and mode 0600: no child process can
/// inherit it, even one started by another thread at that very moment, and no other user can read it. Its name is
/// removed at once, so nothing is left behind however the process ends.
///
/// It only carries out what ``ChunkQueue/StateMachine`` decides, with offsets the machine keeps: the body's writer
/// writes, truncates, punches and closes it, one action at a time; the consumer reads bytes already written. Neither
/// ever runs on URLSession's work queue or under the queue's lock.
package final class SpillFile: Sendable {
    private let descriptor: Int32
    private let closed = Atomic(false)

    /// Makes the file in `directory`.
    /// - Throws: ``ResponseBodyError/spillFailed(reason:)`` when the file cannot be made.
    init(in directory: URL) throws(ResponseBodyError) {
        descriptor = try Self.makeDescriptor(in: directory)
    }

    /// Opens a new file in `directory`, close-on-exec and readable by this user only from the call that opens it,
    /// and removes its name; the caller owns the descriptor.
    /// - Throws: ``ResponseBodyError/spillFailed(reason:)`` when no file can be made there.
    package static func makeDescriptor(in directory: URL) throws(ResponseBodyError) -> Int32 {
        let attempts = 16
        for _ in 0..<attempts {
            let name = "netkit-body-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let path = directory.appending(path: name, directoryHint: .notDirectory).path(percentEncoded: false)
            let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                _ = unlink(path)
                return descriptor
            }
            let code = errno
            // Taken by another file (or interrupted): another name.
            guard code == EEXIST || code == EINTR else {
                throw .spillFailed(reason: "cannot make a temporary file in \(directory.path): \(describe(code))")
            }
        }
        throw .spillFailed(
            reason: "cannot make a temporary file in \(directory.path): \(attempts) random names were all taken")
    }

    /// Writes `pieces` one after the other from `offset`.
    /// - Throws: ``ResponseBodyError/spillFailed(reason:)`` when the file cannot take them (a full disk, say).
    func write(_ pieces: [Data], at offset: Int64) throws(ResponseBodyError) {
        var position = offset
        for piece in pieces {
            let failure: Int32? = piece.withUnsafeBytes { bytes in
                var done = 0
                // Each round writes at least one byte or fails: at most `bytes.count` rounds.
                while done < bytes.count {
                    let count = pwrite(
                        descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(position) + off_t(done))
                    if count < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    done += count
                }
                return nil
            }
            if let code = failure {
                throw .spillFailed(reason: "cannot write to the temporary file: \(describe(code))")
            }
            position += Int64(piece.count)
        }
    }

    /// Reads `count` bytes written earlier, from `offset`.
    /// - Throws: ``ResponseBodyError/spillFailed(reason:)`` when the file cannot be read.
    func read(at offset: Int64, count: Int) throws(ResponseBodyError) -> Data {
        var data = Data(count: count)
        let failure: Int32? = data.withUnsafeMutableBytes { bytes in
            var done = 0
            while done < count {
                let read = pread(descriptor, bytes.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if read < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                // The bytes were written before they were asked for: a short file is an I/O error.
                if read == 0 { return EIO }
                done += read
            }
            return nil
        }
        if let code = failure {
            throw .spillFailed(reason: "cannot read the temporary file back: \(describe(code))")
        }
        return data
    }

    /// Empties the file: everything written has been read back. A failure only leaves the space taken until the
    /// file is closed.
    func truncate() {
        _ = ftruncate(descriptor, 0)
    }

    /// Gives back the space of `range`, read back already; `false` when the file system cannot (space is then given
    /// back when the consumer catches up and the file is emptied).
    func punchHole(_ range: Range<Int64>) -> Bool {
        guard !range.isEmpty, let fallocate = Self.fallocate else { return false }
        // FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE (Linux ABI constants: not imported into Swift).
        return fallocate(descriptor, 0x02 | 0x01, range.lowerBound, range.upperBound - range.lowerBound) == 0
    }

    /// Closes the file, which frees its space; later calls do nothing.
    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = closeSpillDescriptor(descriptor)
    }

    deinit {
        close()
    }

    /// Whether files made in `directory` live in memory (tmpfs, ramfs): a spill there costs memory, not disk.
    package static func isMemoryBacked(_ directory: URL) -> Bool {
        let path = directory.path(percentEncoded: false)
        #if canImport(Darwin)
        var status = statfs()
        guard statfs(path, &status) == 0 else { return false }
        let name = withUnsafeBytes(of: status.f_fstypename) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return name == "tmpfs" || name == "ramfs"
        #else
        // statfs(2) is not imported into Swift on Linux; its first field is the file system's magic number.
        guard let statfs = Self.statfs else { return false }
        var buffer = [Int](repeating: 0, count: 64)
        let result = buffer.withUnsafeMutableBytes { statfs(path, $0.baseAddress!) }
        // TMPFS_MAGIC, RAMFS_MAGIC (linux/magic.h).
        return result == 0 && (buffer[0] == 0x0102_1994 || buffer[0] == 0x8584_58f6)
        #endif
    }

    /// The bytes an unprivileged user may still write to the file system of `directory`; `nil` when it cannot be
    /// asked (the directory does not exist, say).
    package static func availableBytes(in directory: URL) -> Int? {
        var status = statvfs()
        guard statvfs(directory.path(percentEncoded: false), &status) == 0 else { return nil }
        let (bytes, overflow) = Int(status.f_bavail).multipliedReportingOverflow(by: Int(status.f_frsize))
        return overflow ? .max : bytes
    }

    #if !canImport(Darwin)
    /// `fallocate(2)`, looked up at run time: glibc and musl declare it only for `_GNU_SOURCE`, which Swift's C
    /// modules do not set.
    private static let fallocate: (@convention(c) (Int32, Int32, Int64, Int64) -> Int32)? =
        symbol(
            "fallocate64") ?? symbol("fallocate")

    /// `statfs(2)`, looked up at run time for the same reason.
    private static let statfs: (@convention(c) (UnsafePointer<CChar>, UnsafeMutableRawPointer) -> Int32)? = symbol(
        "statfs")

    private static func symbol<Function>(_ name: String) -> Function? {
        guard let address = dlsym(dlopen(nil, RTLD_NOW), name) else { return nil }
        return unsafeBitCast(address, to: Function.self)
    }
    #else
    /// Darwin has no hole punching by `fallocate`: space is given back when the file is emptied.
    private static let fallocate: ((Int32, Int32, Int64, Int64) -> Int32)? = nil
    #endif

}

/// `strerror(3)` as text.
private func describe(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// `close(2)`, named apart from ``SpillFile/close()`` which would shadow it inside the class.
private func closeSpillDescriptor(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
