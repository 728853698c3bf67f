#if OpenAPI
import Foundation  // FileHandle, FileManager: not in FoundationEssentials
import NetCore
import OpenAPIRuntime
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A generated client's request body read whole before it is sent, for a transport that cannot wait for bytes
/// still being produced: in memory up to a bound, in a temporary file (readable by this user only, from the
/// instant it exists) beyond it, so memory stays bounded whatever its size. Gathered, it can be sent again: retries
/// and renewal apply.
struct GatheredBody {
    /// What the transport sends.
    let source: UploadSource
    /// The temporary file, when the body outgrew memory; ``remove()`` deletes it.
    let file: URL?

    /// The prefix of every temporary file's name.
    static let filePrefix = "netkit-openapi-body-"

    /// How a temporary file is opened: created here or not at all (never an existing file, never through a link
    /// someone planted at its name), for writing, not inherited by child processes.
    static let openFlags: Int32 = O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC
    /// 0600: the only mode a temporary file ever has, given when it is created, so that no other user can open it
    /// in between (creating it first and restricting it afterwards left a window in which a watcher read it).
    static let fileMode: mode_t = 0o600

    /// Reads `body` to its end, into a file in `directory` past `memoryLimit` bytes.
    /// - Throws: the body's own error or `CancellationError` (no file is left behind), or the file system's.
    static func gather(_ body: HTTPBody, memoryLimit: Int, directory: URL) async throws -> GatheredBody {
        var data = Data()
        var file: (url: URL, handle: FileHandle)?
        do {
            for try await chunk in body {
                if let file {
                    try file.handle.write(contentsOf: chunk)
                } else if data.count + chunk.count <= memoryLimit {
                    data.append(contentsOf: chunk)
                } else {
                    let opened = try openTemporaryFile(in: directory)
                    file = opened
                    try opened.handle.write(contentsOf: data)
                    try opened.handle.write(contentsOf: chunk)
                    data = Data()
                }
            }
            try Task.checkCancellation()
            guard let file else { return GatheredBody(source: UploadSource(data: data), file: nil) }
            try file.handle.close()
            return GatheredBody(source: try UploadSource(fileURL: file.url), file: file.url)
        } catch {
            if let file {
                try? file.handle.close()
                try? FileManager.default.removeItem(at: file.url)
            }
            throw error
        }
    }

    /// Creates a new temporary file in `directory`, mode 0600 from the start (``openFlags``, ``fileMode``), and
    /// opens it for writing.
    /// - Throws: `CocoaError(.fileWriteUnknown)` naming the file, with the system's error beneath.
    static func openTemporaryFile(in directory: URL) throws -> (url: URL, handle: FileHandle) {
        let url = directory.appendingPathComponent(filePrefix + UUID().uuidString)
        let descriptor = url.withUnsafeFileSystemRepresentation { path in
            path.map { open($0, openFlags, fileMode) } ?? -1
        }
        guard descriptor >= 0 else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EIO
            throw CocoaError(
                .fileWriteUnknown,
                userInfo: [
                    NSFilePathErrorKey: url.path,
                    NSLocalizedDescriptionKey: "NetOpenAPI could not create the temporary file of a request body at "
                        + "\(url.path): \(String(cString: strerror(code.rawValue)))",
                    NSUnderlyingErrorKey: POSIXError(code),
                ])
        }
        return (url, FileHandle(fileDescriptor: descriptor, closeOnDealloc: true))
    }

    /// Deletes the temporary file, if there is one (a transfer still reading it keeps its open descriptor).
    func remove() {
        if let file { try? FileManager.default.removeItem(at: file) }
    }
}
#endif
