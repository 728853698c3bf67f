/// A way a reply misbehaves as a real server or network would, so a test exercises its retry and timeout handling
/// without a server: add one to a reply with ``StubTransport/Reply/fault(_:)``.
///
/// ```swift
/// stub.stub(.path("/v1/feed"), replies: [.json("{}").fault(.resetBeforeHead), .json("{}")])   // retried once
/// stub.stub(.path("/v1/big"), reply: .data(bytes).fault(.closeMidBody(afterBytes: 1024)))
/// stub.stub(.path("/v1/slow"), reply: .json("{}").fault(.stallAtStart(.seconds(30))))
/// ```
///
/// Each fault fails the way NetKit's own transports report that failure: a reset before the head is
/// `TransportError(.connectionReset)` thrown by `send`; a connection that closes during the body ends the body with
/// `TransportError(.connectionLost)`, after the bytes that came.
///
/// Pauses (``stallAtStart(_:)``, ``stallMidBody(afterBytes:for:)``, the gaps of ``trickle(bytes:every:)``) are slept
/// on the stub's clock (`StubTransport(clock:)`, so a test can pass one that does not sleep) and end at once when the
/// task is cancelled. They honour the request's `idleTimeout` as a real transport does: a silence longer than it (the
/// pauses that fall at the same point add up) lasts `idleTimeout`, then fails with `TransportError(.timedOut)` —
/// thrown by `send` before the head, or ending the body after the head. The reply's own latency
/// (``StubTransport/Reply/delayed(by:)``) is not a fault and is not cut short by the idle timeout.
///
/// Faults combine: a reply can stall at the start, trickle, then close mid-body. Byte counts are counted across the
/// body's chunks, which are split where a count falls inside one.
public struct StubFault: Sendable, Equatable, CustomStringConvertible {
    /// What the fault does; not public, so that more faults can come without breaking a `switch` in user code.
    enum Kind: Sendable, Equatable {
        case resetBeforeHead
        case closeMidBody(afterBytes: Int)
        case stallAtStart(Duration)
        case stallMidBody(afterBytes: Int, duration: Duration)
        case declaredLengthNotReached(missingBytes: Int)
        case trickle(bytes: Int, every: Duration)
    }

    /// What the fault does.
    let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// The server resets the connection before sending the head: `send` throws
    /// `TransportError(.connectionReset)`, which a `RetryPolicy` retries for an idempotent request.
    public static let resetBeforeHead = StubFault(.resetBeforeHead)

    /// The head arrives and the body delivers its first `afterBytes` bytes, then the connection closes: the body
    /// ends with `TransportError(.connectionLost)`. A body of `afterBytes` bytes or fewer is delivered whole and still
    /// ends with that error.
    /// - Precondition: `afterBytes` is not negative.
    public static func closeMidBody(afterBytes: Int) -> StubFault {
        precondition(afterBytes >= 0, "StubFault.closeMidBody needs a byte count of 0 or more, not \(afterBytes).")
        return StubFault(.closeMidBody(afterBytes: afterBytes))
    }

    /// Nothing happens for `duration` before the head arrives (after the reply's own delay and gate); longer than
    /// the request's `idleTimeout`, `send` throws `TransportError(.timedOut)` once the idle timeout has passed.
    /// - Precondition: `duration` is not negative.
    public static func stallAtStart(_ duration: Duration) -> StubFault {
        precondition(duration >= .zero, "StubFault.stallAtStart needs a duration of 0 or more, not \(duration).")
        return StubFault(.stallAtStart(duration))
    }

    /// The body stops for `duration` once `afterBytes` bytes have come, then goes on; longer than the request's
    /// `idleTimeout`, the body ends with `TransportError(.timedOut)` once the idle timeout has passed. A body shorter
    /// than `afterBytes` never stalls; `afterBytes` equal to its length stalls before the end.
    /// - Precondition: `afterBytes` and `duration` are not negative.
    public static func stallMidBody(afterBytes: Int, for duration: Duration) -> StubFault {
        precondition(afterBytes >= 0, "StubFault.stallMidBody needs a byte count of 0 or more, not \(afterBytes).")
        precondition(duration >= .zero, "StubFault.stallMidBody needs a duration of 0 or more, not \(duration).")
        return StubFault(.stallMidBody(afterBytes: afterBytes, duration: duration))
    }

    /// The head's `Content-Length` declares the body's real length plus `missingBytes` (replacing any
    /// `Content-Length` of the reply's), every real byte comes, then the connection closes: the body ends with
    /// `TransportError(.connectionLost)`. Progress counts toward the declared length, as it would on a real transport.
    /// - Precondition: `missingBytes` is more than 0.
    public static func declaredLengthNotReached(missingBytes: Int) -> StubFault {
        precondition(
            missingBytes > 0, "StubFault.declaredLengthNotReached needs at least 1 missing byte, not \(missingBytes).")
        return StubFault(.declaredLengthNotReached(missingBytes: missingBytes))
    }

    /// The body arrives in pieces of at most `bytes` bytes: the first at once, then one every `every`. A gap longer
    /// than the request's `idleTimeout` ends the body with `TransportError(.timedOut)` once the idle timeout has
    /// passed.
    /// - Precondition: `bytes` is more than 0 and `every` is not negative.
    public static func trickle(bytes: Int, every: Duration) -> StubFault {
        precondition(bytes > 0, "StubFault.trickle needs pieces of at least 1 byte, not \(bytes).")
        precondition(every >= .zero, "StubFault.trickle needs a gap of 0 or more, not \(every).")
        return StubFault(.trickle(bytes: bytes, every: every))
    }

    /// The fault as it is written in code: `closeMidBody(afterBytes: 10)`.
    public var description: String {
        switch kind {
        case .resetBeforeHead: "resetBeforeHead"
        case .closeMidBody(let bytes): "closeMidBody(afterBytes: \(bytes))"
        case .stallAtStart(let duration): "stallAtStart(\(duration))"
        case .stallMidBody(let bytes, let duration): "stallMidBody(afterBytes: \(bytes), for: \(duration))"
        case .declaredLengthNotReached(let missing): "declaredLengthNotReached(missingBytes: \(missing))"
        case .trickle(let bytes, let every): "trickle(bytes: \(bytes), every: \(every))"
        }
    }
}
