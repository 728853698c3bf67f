#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response body that could not be read as asked: its temporary file failed, or two consumers read it at once.
///
/// ```swift
/// catch let error as ResponseBodyError where error.kind == .spillFailed { … }
/// ```
public struct ResponseBodyError: Error, Sendable, Hashable {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// The temporary file that holds the bytes a slow consumer has not read yet could not be made, written or
        /// read back (a full disk, say).
        case spillFailed
        /// A second iterator of one body asked for a chunk while the first was waiting for one: a body has one
        /// consumer.
        case concurrentIteration
    }

    /// What went wrong.
    public let kind: Kind
    /// Which step failed and why, for ``Kind/spillFailed``; empty otherwise.
    public let reason: String

    /// The spill file failed; `reason` says which step and why.
    public static func spillFailed(reason: String) -> ResponseBodyError {
        ResponseBodyError(kind: .spillFailed, reason: reason)
    }

    /// A second consumer read the body while the first waited.
    public static let concurrentIteration = ResponseBodyError(kind: .concurrentIteration, reason: "")

    private init(kind: Kind, reason: String) {
        self.kind = kind
        self.reason = reason
    }
}

extension ResponseBodyError: CustomStringConvertible {
    /// A sentence that names the failure.
    public var description: String {
        switch kind {
        case .spillFailed:
            "The bytes waiting for the stream's slow consumer could not be kept on disk: \(reason)."
        case .concurrentIteration:
            "A response body was iterated by two consumers at once; a body has one consumer."
        }
    }
}

extension ResponseBodyError: LocalizedError {
    /// The same sentence as ``description``.
    public var errorDescription: String? { description }
}
