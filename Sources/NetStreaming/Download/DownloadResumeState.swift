#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where an unfinished download stands: enough to continue it later, after a relaunch, from a new URL for the same
/// resource (a re-signed link), with a `Range` request that asks only for the bytes still missing.
///
/// A plain `Codable` value. NetKit keeps it beside the partial file while a download runs
/// (``DownloadOptions/stateFile(for:)``), so a download that the process never got to finish (a crash, Ctrl-C) resumes
/// when it is started again with the same destination; it is also in ``DownloadError/interrupted(resumeState:underlying:)``
/// for a caller that keeps its own. It holds no URL, header or credential: nothing in it is secret.
public struct DownloadResumeState: Codable, Sendable, Hashable {
    /// The file that holds the bytes received so far.
    public var partialFile: URL
    /// The bytes in ``partialFile`` when the state was taken. On resume the file's own length counts: the bytes are
    /// always a prefix of the resource, written in order.
    public var bytesOnDisk: Int64
    /// What the next request sends in `If-Range`; `nil` when the server gave no strong validator, and the download
    /// can then only start over.
    public var validator: DownloadValidator?
    /// The resource's whole length, when the server said it.
    public var totalBytes: Int64?
    /// Whether the server said it serves byte ranges (`Accept-Ranges: bytes`, or a 206).
    public var acceptsRanges: Bool
    /// The SHA-256 of the whole resource the server announced (`Repr-Digest`), lowercase hexadecimal, checked when the
    /// download completes.
    public var announcedSHA256: String?

    /// Creates a state.
    public init(
        partialFile: URL,
        bytesOnDisk: Int64 = 0,
        validator: DownloadValidator? = nil,
        totalBytes: Int64? = nil,
        acceptsRanges: Bool = false,
        announcedSHA256: String? = nil
    ) {
        self.partialFile = partialFile
        self.bytesOnDisk = bytesOnDisk
        self.validator = validator
        self.totalBytes = totalBytes
        self.acceptsRanges = acceptsRanges
        self.announcedSHA256 = announcedSHA256
    }

    /// Whether a request for the rest may be made: bytes on disk, a strong validator, and a server that serves
    /// ranges.
    public var isResumable: Bool {
        validator != nil && acceptsRanges
    }

    /// The state NetKit saved at `stateFile`, or `nil` when there is none or it cannot be read (a download then
    /// starts over).
    public static func saved(at stateFile: URL) -> DownloadResumeState? {
        guard let data = try? Data(contentsOf: stateFile) else { return nil }
        return try? JSONDecoder().decode(DownloadResumeState.self, from: data)
    }

    /// Writes this state to `stateFile`, at once in full or not at all. Best effort: a state that cannot be written
    /// (a full disk) is still in the error the download throws.
    func save(at stateFile: URL) {
        if let data = try? JSONEncoder().encode(self) { try? data.write(to: stateFile, options: .atomic) }
    }
}
