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

/// A nameless temporary file that holds the bytes of a body its consumer has not caught up with, in order.
///
/// The file is unlinked as soon as it is made, so nothing is left behind however the process ends, and no other
/// process can open it by name. Bytes are appended at the end and read from the front; once everything written has
/// been read, both positions return to the start, so a consumer that catches up now and then keeps the file small.
/// Owned by one ``ChunkQueue`` and used under its lock only.
final class SpillFile {
    private var descriptor: Int32
    /// Where the next byte is written.
    private var writeOffset: Int64 = 0
    /// Where the next unread byte is.
    private var readOffset: Int64 = 0

    /// Bytes written and not yet read.
    var unreadCount: Int64 { writeOffset - readOffset }

    /// Makes the file in `directory`.
    /// - Throws: ``ResponseBodyError/spillFailed(reason:)`` when the file cannot be made.
    init(in directory: URL) throws(ResponseBodyError) {
        let template = directory.appending(path: "netkit-body-XXXXXX", directoryHint: .notDirectory)
        var path = Array(template.path(percentEncoded: false).utf8CString)
        let descriptor = path.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw .spillFailed(reason: "cannot make a temporary file in \(directory.path): \(Self.describe(errno))")
        }
        // No child process inherits it, and no one else can open it by name.
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        _ = path.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        self.descriptor = descriptor
    }

    /// Appends `data`.
    /// - Throws: ``ResponseBodyError/spillFailed(reason:)`` when the file cannot take it (a full disk, say).
    func append(_ data: Data) throws(ResponseBodyError) {
        var written = 0
        let result: Int32? = data.withUnsafeBytes { bytes in
            while written < bytes.count {
                let count = pwrite(
                    descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(writeOffset) + off_t(written)
                )
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            return nil
        }
        if let code = result {
            throw .spillFailed(reason: "cannot write to the temporary file: \(Self.describe(code))")
        }
        writeOffset += Int64(written)
    }

    /// Takes up to `maximum` unread bytes from the front; empty when everything written has been read.
    /// - Throws: ``ResponseBodyError/spillFailed(reason:)`` when the file cannot be read.
    func take(upTo maximum: Int) throws(ResponseBodyError) -> Data {
        let count = Int(min(Int64(maximum), unreadCount))
        guard count > 0 else { return Data() }
        var data = Data(count: count)
        let failure: Int32? = data.withUnsafeMutableBytes { bytes in
            var done = 0
            while done < count {
                let read = pread(descriptor, bytes.baseAddress! + done, count - done, off_t(readOffset) + off_t(done))
                if read < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if read == 0 { return EIO }
                done += read
            }
            return nil
        }
        if let code = failure {
            throw .spillFailed(reason: "cannot read the temporary file back: \(Self.describe(code))")
        }
        readOffset += Int64(count)
        if readOffset == writeOffset {
            readOffset = 0
            writeOffset = 0
        }
        return data
    }

    /// Closes the file, which frees its space; later calls do nothing.
    func close() {
        guard descriptor >= 0 else { return }
        _ = closeSpillDescriptor(descriptor)
        descriptor = -1
    }

    deinit {
        close()
    }

    private static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// `close(2)`, named apart from ``SpillFile/close()`` which would shadow it inside the class.
private func closeSpillDescriptor(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
