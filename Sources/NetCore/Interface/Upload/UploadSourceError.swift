import Foundation  // strerror: not in FoundationEssentials

/// Why an ``UploadSource`` could not be created or read.
///
/// Every case stops the body before it can disagree with its declared length: a receiver
/// given a `Content-Length` must never get fewer or more bytes, and a chunked body must
/// never end cleanly when a file or stream broke.
public enum UploadSourceError: Error, Equatable, Sendable {
    /// No file exists at the path (checked when the file is added and when it is reached).
    case fileNotFound(URL)
    /// The path exists but is a directory, device, FIFO or socket: only regular files have a
    /// size known before reading, which `Content-Length` and progress need.
    case notARegularFile(URL)
    /// The file exists but cannot be opened or inspected; `errno` is the system's reason
    /// (e.g. `EACCES`).
    case fileUnreadable(URL, errno: Int32)
    /// `offset` and `length` describe bytes beyond the end of the file.
    case rangeOutsideFile(URL, offset: Int64, length: Int64, fileSize: Int64)
    /// The file's size differs from the size seen when it was added: it was truncated,
    /// appended to or replaced. Sending it would break the declared length.
    case fileSizeChanged(URL, expected: Int64, actual: Int64)
    /// Reading the file failed part-way; `errno` is the system's reason.
    case fileReadFailed(URL, errno: Int32)
    /// A one-shot stream was already taken by an earlier reader: its bytes are gone.
    case streamAlreadyConsumed
    /// A stream of declared length ended early (`actual < expected`) or had more bytes
    /// (`actual` is then `expected + 1`, the first extra byte seen).
    case streamLengthMismatch(expected: Int64, actual: Int64)
    /// The stream reported an error; `description` is its `streamError`, if it gave one.
    case streamFailed(description: String?)
    /// The reader was closed (explicitly or by cancellation) before the body ended.
    case readerClosed
}

extension UploadSourceError: CustomStringConvertible {
    /// A sentence for logs; paths are shown because they identify the failing part.
    public var description: String {
        switch self {
        case let .fileNotFound(url):
            "No file at \(url.path)"
        case let .notARegularFile(url):
            "Not a regular file: \(url.path)"
        case let .fileUnreadable(url, code):
            "Cannot read \(url.path): \(String(cString: strerror(code)))"
        case let .rangeOutsideFile(url, offset, length, size):
            "Bytes \(offset)..<\(offset + length) lie outside \(url.path) (\(size) bytes)"
        case let .fileSizeChanged(url, expected, actual):
            "\(url.path) changed size while queued for upload: \(expected) bytes expected, \(actual) found"
        case let .fileReadFailed(url, code):
            "Reading \(url.path) failed: \(String(cString: strerror(code)))"
        case .streamAlreadyConsumed:
            "The upload stream was already read by an earlier attempt"
        case let .streamLengthMismatch(expected, actual):
            actual < expected
                ? "The upload stream ended after \(actual) of \(expected) declared bytes"
                : "The upload stream has more than the \(expected) declared bytes"
        case let .streamFailed(description):
            "The upload stream failed: \(description ?? "no reason given")"
        case .readerClosed:
            "The upload was closed before its body ended"
        }
    }
}
