import Synchronization

/// An HTTP cache (RFC 9111) kept in memory, opt-in: `manager.responseCache = ResponseCache(maximumBytes: 8 << 20)`.
public final class ResponseCache: Sendable {
    /// The most bytes of stored bodies and headers kept; the least recently used entries go first.
    public let maximumBytes: Int

    /// Creates an empty cache holding at most `maximumBytes`.
    public init(maximumBytes: Int) {
        self.maximumBytes = max(0, maximumBytes)
    }
}
