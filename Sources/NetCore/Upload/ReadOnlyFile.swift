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

/// An open file descriptor, read with `pread(2)` so no seek position is kept besides the caller's.
///
/// ``close()`` is idempotent and `deinit` closes too, so a reader dropped on any path
/// (success, error, cancellation) releases the descriptor. Owned by one ``UploadReader``.
final class ReadOnlyFile {
    private var descriptor: Int32
    let url: URL

    /// What `fstat(2)` says about a path, reduced to what uploads need.
    struct Status {
        let isRegularFile: Bool
        let size: Int64
    }

    /// Inspects `url` without opening it, mapping `errno` to ``UploadSourceError``.
    static func status(of url: URL) throws(UploadSourceError) -> Status {
        var info = stat()
        let result = url.withUnsafeFileSystemRepresentation { path -> Int32 in
            guard let path else {
                errno = ENOENT
                return -1
            }
            return stat(path, &info)
        }
        guard result == 0 else { throw error(for: url, errno: errno) }
        return Status(isRegularFile: (info.st_mode & S_IFMT) == S_IFREG, size: Int64(info.st_size))
    }

    /// Opens `url` read-only and close-on-exec, so a child process never inherits it.
    init(opening url: URL) throws(UploadSourceError) {
        let descriptor = url.withUnsafeFileSystemRepresentation { path -> Int32 in
            guard let path else {
                errno = ENOENT
                return -1
            }
            var result: Int32
            repeat { result = open(path, O_RDONLY | O_CLOEXEC) } while result < 0 && errno == EINTR
            return result
        }
        guard descriptor >= 0 else { throw Self.error(for: url, errno: errno) }
        self.descriptor = descriptor
        self.url = url
    }

    /// The status of the open file; unlike ``status(of:)`` it cannot be fooled by a rename.
    func status() throws(UploadSourceError) -> Status {
        guard descriptor >= 0 else { throw .fileReadFailed(url, errno: EBADF) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .fileUnreadable(url, errno: errno) }
        return Status(isRegularFile: (info.st_mode & S_IFMT) == S_IFREG, size: Int64(info.st_size))
    }

    /// Reads up to `buffer.count` bytes at `offset`; 0 means end of file.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(UploadSourceError) -> Int {
        guard descriptor >= 0 else { throw .fileReadFailed(url, errno: EBADF) }
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        var count: Int
        repeat { count = pread(descriptor, base, buffer.count, off_t(offset)) } while count < 0 && errno == EINTR
        guard count >= 0 else { throw .fileReadFailed(url, errno: errno) }
        return count
    }

    /// Closes the descriptor; later calls do nothing.
    func close() {
        guard descriptor >= 0 else { return }
        // EINTR on close must not be retried on Linux: the descriptor is already released.
        _ = closeFileDescriptor(descriptor)
        descriptor = -1
    }

    deinit {
        close()
    }

    static func error(for url: URL, errno code: Int32) -> UploadSourceError {
        switch code {
        case ENOENT, ENOTDIR: .fileNotFound(url)
        default: .fileUnreadable(url, errno: code)
        }
    }
}

/// `close(2)`, named apart from ``ReadOnlyFile/close()`` which would shadow it inside the class.
private func closeFileDescriptor(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
