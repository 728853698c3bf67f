#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a download keeps its partial file, what it checks, and where it resumes from.
public struct DownloadOptions: Sendable {
    /// Where the bytes go until the download is complete and verified; `nil` for ``partialFile(for:)`` of the
    /// destination. It must be on the destination's file system, so that the final move is one atomic rename.
    public var partialFile: URL?
    /// Where to resume from, when the caller kept the state itself (from ``DownloadError/interrupted(resumeState:underlying:)``,
    /// say, to resume from a re-signed URL). `nil`: the state NetKit saved beside the partial file, if any.
    public var resumeState: DownloadResumeState?
    /// The SHA-256 the complete file must have, hexadecimal; checked before the file is moved into place.
    public var expectedSHA256: String?
    /// Whether the digests the server sends (RFC 9530 `Repr-Digest` for the whole resource, `Content-Digest` for
    /// what each response carries) are checked, when they use SHA-256. On by default.
    public var checksAnnouncedDigests: Bool
    /// The most requests one call makes, resumes included: a floor under a server that answers each request with
    /// a few bytes, or with a 416 that never settles. 1,000 by default.
    public var maximumRequests: Int
    /// When set, the partial file refuses to grow past this many bytes as a full disk would (`ENOSPC`): tests of a
    /// full disk on any machine.
    package var simulatedDiskCapacity: Int64?

    /// Creates options.
    public init(
        partialFile: URL? = nil,
        resumeState: DownloadResumeState? = nil,
        expectedSHA256: String? = nil,
        checksAnnouncedDigests: Bool = true,
        maximumRequests: Int = 1000
    ) {
        self.partialFile = partialFile
        self.resumeState = resumeState
        self.expectedSHA256 = expectedSHA256
        self.checksAnnouncedDigests = checksAnnouncedDigests
        self.maximumRequests = max(1, maximumRequests)
    }

    /// The default partial file of `destination`: its path with `.partial` appended, beside it.
    public static func partialFile(for destination: URL) -> URL {
        destination.deletingLastPathComponent().appending(
            path: destination.lastPathComponent + ".partial", directoryHint: .notDirectory)
    }

    /// The file NetKit keeps a download's ``DownloadResumeState`` in while it runs: the partial file's path with
    /// `.resume` appended. Removed when the download completes.
    public static func stateFile(for partialFile: URL) -> URL {
        partialFile.deletingLastPathComponent().appending(
            path: partialFile.lastPathComponent + ".resume", directoryHint: .notDirectory)
    }
}
