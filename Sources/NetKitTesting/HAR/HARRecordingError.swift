/// A file ``HARRecordingTransport`` could not write or read: what it was doing, where, and why.
///
/// Thrown by ``HARRecordingTransport/flush()`` (the archive, or a body written while the caller read it) and by
/// ``HARRecordingTransport/send(_:)`` when a request body could not be kept (the request is then not sent). Its text
/// names files, never what they hold.
public struct HARRecordingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed: `"write the archive"`, `"write a response body"`, `"spool a stream request body"`….
    public let operation: String
    /// The file or folder concerned.
    public let path: String
    /// The file system's reason.
    public let reason: String

    /// Creates the error.
    public init(operation: String, path: String, reason: String) {
        self.operation = operation
        self.path = path
        self.reason = reason
    }

    /// `HAR recording could not <operation> at <path>: <reason>`.
    public var description: String {
        "HAR recording could not \(operation) at \(path): \(reason)"
    }
}
