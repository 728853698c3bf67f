#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

/// A completed download: the file in place, and what was checked of it.
public struct DownloadedFile: Sendable {
    /// Where the file is: the destination asked for.
    public var url: URL
    /// Its length in bytes.
    public var byteCount: Int64
    /// Its SHA-256, lowercase hexadecimal, when one was checked (``DownloadOptions/expectedSHA256``, or a digest the
    /// server announced); `nil` when nothing asked for one.
    public var sha256: String?
    /// The head of the last response.
    public var head: HTTPResponseHead
    /// The requests after the first: resumes and restarts.
    public var resumes: Int
}
