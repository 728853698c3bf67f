#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A regular file, or a byte range of one, checked when it is described.
///
/// Describing it stats the file, so a missing, unreadable or non-regular file fails at once
/// (when a part is added), not halfway through an upload. The size seen then is the size the
/// body declares; an ``UploadReader`` refuses the file if it later has another size.
public struct UploadFile: Sendable, Equatable {
    /// The file's location.
    public let url: URL
    /// Where the range starts, in bytes from the start of the file.
    public let offset: Int64
    /// How many bytes are sent.
    public let length: Int64
    /// The whole file's size when it was described; compared again when the file is read.
    public let fileSize: Int64

    /// Describes `length` bytes of the file at `url` starting at `offset` (by default the
    /// whole file).
    ///
    /// The file is opened once to prove it is readable, and closed again: nothing stays open
    /// until a reader reaches it.
    ///
    /// - Throws: ``UploadSourceError/fileNotFound(_:)``, ``UploadSourceError/notARegularFile(_:)``,
    ///   ``UploadSourceError/fileUnreadable(_:errno:)``, or
    ///   ``UploadSourceError/rangeOutsideFile(_:offset:length:fileSize:)``.
    public init(url: URL, offset: Int64 = 0, length: Int64? = nil) throws(UploadSourceError) {
        guard url.isFileURL else { throw .fileNotFound(url) }
        let status = try ReadOnlyFile.status(of: url)
        guard status.isRegularFile else { throw .notARegularFile(url) }
        // Permission bits do not tell the whole story (ACLs, root, read-only mounts): try it.
        let probe = try ReadOnlyFile(opening: url)
        probe.close()
        let length = length ?? max(status.size - offset, 0)
        guard offset >= 0, length >= 0, offset <= status.size, length <= status.size - offset else {
            throw .rangeOutsideFile(url, offset: offset, length: length, fileSize: status.size)
        }
        self.url = url
        self.offset = offset
        self.length = length
        self.fileSize = status.size
    }
}
