import Foundation  // InputStream: not in FoundationEssentials
import NetKitLock

/// An `InputStream` that exactly one reader may take.
///
/// A stream's bytes are gone once read, so a body holding one cannot be produced twice: the
/// first ``UploadSource/makeReader()`` takes the stream and any later one fails with
/// ``UploadSourceError/streamAlreadyConsumed`` instead of sending an empty or partial body.
///
/// `Sendable` although `InputStream` is not: the stream is only reachable through ``take()``,
/// which hands it out under a lock exactly once, so no two threads ever hold it.
public final class SingleUseInputStream: Sendable {
    private let stream: Lock<InputStream?>

    /// Wraps `stream`, which must not have been opened; the caller gives up its reference.
    public init(_ stream: sending InputStream) {
        self.stream = Lock(stream)
    }

    /// Hands the stream over once; later calls return `nil`.
    public func take() -> InputStream? {
        stream.withLock { value in
            let taken = value
            value = nil
            return taken
        }
    }

    /// Whether ``take()`` has already handed the stream out.
    public var isTaken: Bool {
        stream.withLock { $0 == nil }
    }
}

extension SingleUseInputStream: Equatable {
    /// Identity: two handles are equal only when they are the same handle, since they can
    /// only ever yield the same bytes then.
    public static func == (lhs: SingleUseInputStream, rhs: SingleUseInputStream) -> Bool {
        lhs === rhs
    }
}
