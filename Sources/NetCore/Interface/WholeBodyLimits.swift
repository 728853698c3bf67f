#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

    /// Whether a response is refused at its head: a 2xx that declares a `Content-Length` beyond ``success`` for a
    /// body NetKit would read as it is (not encoded, not the answer to a HEAD, a status that has a body). Its body
    /// cannot fit, so waiting for it would only let a server that declares gigabytes and trickles hold the request
    /// as long as it likes. `send` then fails with ``NetworkError/responseTooLarge(limitBytes:)`` at once, and a
    /// transport that gathers the body may hand the response over without it.
    package func refusesAtHead(_ head: HTTPResponseHead, method: HTTPRequestMethod) -> Bool {
        head.isSuccess && head.declaresBody(longerThan: success, method: method)
    }
}
