/// How much of a response body a caller that collects it whole keeps: `send`'s response and error-payload
/// limits, handed to the transport as ``TransportRequest/wholeBody``.
///
/// A transport that delivers such a body whole, in memory, keeps at most ``limit(forStatus:)`` + 1 bytes and
/// then stops the transfer: memory stays bounded, and the caller still sees that the body was longer than it
/// keeps (a 2xx body fails with ``NetworkError/responseTooLarge(limitBytes:)``, any other is cut and marked
/// truncated).
public struct WholeBodyLimits: Sendable, Hashable {
    /// The most bytes of a 2xx body the caller keeps.
    public var success: Int
    /// The most bytes of any other body the caller keeps.
    public var failure: Int

    /// Creates limits for 2xx bodies and for the others.
    public init(success: Int, failure: Int) {
        self.success = max(0, success)
        self.failure = max(0, failure)
    }

    /// The limit for a response with `status`.
    public func limit(forStatus status: Int) -> Int {
        (200..<300).contains(status) ? success : failure
    }
}
