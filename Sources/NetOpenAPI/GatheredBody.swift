#if OpenAPI
import Foundation  // FileHandle, FileManager: not in FoundationEssentials
import NetCore
import OpenAPIRuntime

/// A generated client's request body read whole before it is sent, for a transport that cannot wait for bytes
/// still being produced: in memory up to a bound, in a temporary file (readable by this user only) beyond it, so
/// memory stays bounded whatever its size. Gathered, it can be sent again: retries and renewal apply.
struct GatheredBody {
    /// What the transport sends.
    let source: UploadSource
    /// The temporary file, when the body outgrew memory; ``remove()`` deletes it.
    let file: URL?

    /// The prefix of every temporary file's name.
    static let filePrefix = "netkit-openapi-body-"

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

    private static func openTemporaryFile(in directory: URL) throws -> (url: URL, handle: FileHandle) {
        let url = directory.appendingPathComponent(filePrefix + UUID().uuidString)
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
        return (url, try FileHandle(forWritingTo: url))
    }

    /// Deletes the temporary file, if there is one (a transfer still reading it keeps its open descriptor).
    func remove() {
        if let file { try? FileManager.default.removeItem(at: file) }
    }
}
#endif
