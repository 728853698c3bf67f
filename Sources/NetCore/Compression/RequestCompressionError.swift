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

/// Why ``RequestCompressionPlugin`` could not compress a request body. Thrown from the plugin's `prepare`, so the
/// request fails before anything of it is sent, and no temporary file is left behind.
///
/// A body that cannot be read (a file that vanished or changed size, a stream that broke or was already read) fails
/// with the ``UploadSourceError`` it would have failed with when sent.
public enum RequestCompressionError: Error, Sendable, Equatable {
    /// No temporary file could be made in `directory` for a body of files or streams; `errno` is the system's reason
    /// (`ENOENT`: no such directory, `EACCES`: not writable, `ENOSPC`, `EROFS`, …).
    case temporaryFileUnavailable(directory: URL, errno: Int32)
    /// Writing the compressed body to its temporary file failed part-way; `errno` is the system's reason (`ENOSPC`:
    /// the disk is full, say).
    case temporaryFileWriteFailed(URL, errno: Int32)
    /// zlib refused to start or to go on (`Z_MEM_ERROR`: out of memory); `code` is zlib's return code.
    case compressorFailed(code: Int32)
}

extension RequestCompressionError: CustomStringConvertible {
    /// A sentence for logs, naming the directory or file and the system's reason.
    public var description: String {
        switch self {
        case .temporaryFileUnavailable(let directory, let code):
            "Cannot make a temporary file for a compressed request body in \(directory.path): \(reason(code))"
        case .temporaryFileWriteFailed(let url, let code):
            "Cannot write the compressed request body to \(url.path): \(reason(code))"
        case .compressorFailed(let code):
            "zlib could not compress the request body (code \(code))"
        }
    }
}

extension RequestCompressionError: LocalizedError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}

/// `strerror(3)` as text.
private func reason(_ code: Int32) -> String {
    String(cString: strerror(code))
}
