#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a download did not complete, or completed wrong.
///
/// A download that fails keeps its partial file and its state unless this says the bytes were wrong; a status the
/// server answers with (404, 403 of an expired link…) fails with the road's own error, and a cancelled task with
/// `CancellationError`, the state then saved beside the partial file.
public enum DownloadError: Error, LocalizedError, Sendable {
    /// The transfer broke (a reset, a timeout, a truncated body) and the request's retry policy allowed no more
    /// tries; `resumeState` continues it.
    case interrupted(resumeState: DownloadResumeState, underlying: any Error)
    /// The disk took no more bytes; the partial file keeps what was written and `resumeState` continues it once
    /// there is room.
    case diskFull(path: String, resumeState: DownloadResumeState)
    /// A file operation failed for another reason.
    case fileSystem(path: String, operation: String, reason: String)
    /// The bytes received do not have the digest `source` announced (``DownloadOptions/expectedSHA256``,
    /// `Repr-Digest` or `Content-Digest`). Those bytes are discarded; the next attempt fetches them again.
    case checksumMismatch(source: String, expected: String, actual: String)
    /// The file ended at a length other than the one the server announced.
    case lengthMismatch(expected: Int64, actual: Int64)
    /// The server answered in a way a download cannot use: a 206 that does not continue the bytes on disk, or one
    /// that was not asked for.
    case unusableResponse(reason: String)
    /// The call made ``DownloadOptions/maximumRequests`` requests without finishing.
    case tooManyRequests(limit: Int)

    /// What failed and what to do, in words a person can act on.
    public var errorDescription: String? {
        switch self {
        case let .interrupted(state, underlying):
            "The download was cut off after \(state.bytesOnDisk) bytes (\(underlying)); "
                + (state.isResumable
                    ? "start it again to resume from there."
                    : "the server offers no way to resume, so starting it again starts over.")
        case let .diskFull(path, state):
            "The disk is full: \(path) holds \(state.bytesOnDisk) bytes and takes no more; free some space and start "
                + "the download again to resume."
        case let .fileSystem(path, operation, reason):
            "Cannot \(operation) \(path): \(reason)."
        case let .checksumMismatch(source, expected, actual):
            "The downloaded bytes have SHA-256 \(actual), not \(expected) as \(source) says; they were discarded."
        case let .lengthMismatch(expected, actual):
            "The download ended at \(actual) bytes where the server announced \(expected)."
        case let .unusableResponse(reason):
            "The server's answer cannot continue the download: \(reason)."
        case let .tooManyRequests(limit):
            "The download made \(limit) requests without finishing (DownloadOptions.maximumRequests)."
        }
    }
}
