#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a response cache on disk could not be opened, or why stored bytes were not taken as an entry.
public enum ResponseCacheError: Error, Sendable, Equatable {
    /// The directory could not be made or used (`path`), for `reason`: a file in its place, no permission, no space.
    case directoryUnusable(path: String, reason: String)
    /// Another process holds the directory: one process at a time may keep a cache in it (two caches in one process
    /// share it). `path` is the directory.
    case directoryInUse(path: String)
    /// Bytes that are not a whole entry: truncated, altered, or of another format version (``ResponseCacheEntry``).
    case damagedEntry(reason: String)
}

extension ResponseCacheError: LocalizedError {
    /// What failed and what to do about it.
    public var errorDescription: String? {
        switch self {
        case .directoryUnusable(let path, let reason):
            "The response cache cannot use the directory \(path): \(reason). Name a directory this process may "
                + "create and write, such as one under the caches directory."
        case .directoryInUse(let path):
            "The response cache directory \(path) is in use by another process. Give each process a directory of "
                + "its own, or share one ResponseCache between the managers of one process."
        case .damagedEntry(let reason):
            "A stored cache entry is damaged and was not used: \(reason)."
        }
    }
}
