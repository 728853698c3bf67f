import Foundation
import Synchronization

/// An `InputStream` that a request hands to exactly one transport attempt.
///
/// A stream can be read only once, so a request whose body is an `UploadStream` is never retried: the
/// transport takes the stream with ``take()``, and a second attempt would find it gone.
public final class UploadStream: Sendable {
    private let stream: Mutex<InputStream?>
    /// The number of bytes the stream will yield, when the caller knows it (used for progress).
    public let length: Int64?

    /// Wraps a stream; `length` is its size in bytes when known.
    public init(_ stream: sending InputStream, length: Int64? = nil) {
        self.stream = Mutex(stream)
        self.length = length
    }

    /// Hands the stream over once; later calls return `nil`.
    public func take() -> InputStream? {
        stream.withLock { value in
            let taken = value
            value = nil
            return taken
        }
    }
}
