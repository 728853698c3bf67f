import NetCore

/// The decisions of an ``EventSource``'s reconnection loop, as a value: no I/O, no clock, no randomness of its own.
///
/// The iterator tells it what each connection did (``connecting()``, ``delivered()``, ``connectionFailed(_:)``,
/// ``connectionEnded(by:serverRetry:)``) and asks it, before every connection after the first, how long to wait or
/// whether to give up (``reconnection(randomUnit:)``). A connection that fails, or ends before its first event,
/// counts as a failure; one that delivered an event resets the count. The waits are the policy's
/// (``EventSourcePolicy/delay(afterFailures:serverRetry:randomUnit:)``): never below its floor, whatever `retry` the
/// server sent.
package struct ReconnectBackoff: Sendable {
    /// What to do before the next connection.
    package enum Decision: Sendable {
        /// Connect at once: nothing has been tried yet.
        case connectNow
        /// Wait this long, then connect.
        case wait(Duration)
        /// Stop: the policy allows no more failed attempts in a row.
        case giveUp(EventSourceError)
    }

    package let policy: EventSourcePolicy
    /// Connection attempts in a row that failed or ended before their first event.
    package private(set) var failures = 0
    /// The last failure, for ``EventSourceError/reconnectLimitReached(attempts:lastError:)``.
    package private(set) var lastError: (any Error)?
    /// The server's last valid `retry`, if any.
    package private(set) var reconnectionTime: Duration?
    /// Connections opened (or attempted) so far.
    package private(set) var connections = 0
    private var deliveredOnThisConnection = false

    package init(policy: EventSourcePolicy) {
        self.policy = policy
    }

    /// The decision before the next connection; `randomUnit`, a number in `0..<1`, picks the jittered wait.
    package func reconnection(randomUnit: Double) -> Decision {
        guard connections > 0 else { return .connectNow }
        guard policy.allowsAttempt(afterFailures: failures) else {
            return .giveUp(.reconnectLimitReached(attempts: failures, lastError: lastError ?? TransportError(.other)))
        }
        return .wait(policy.delay(afterFailures: failures, serverRetry: reconnectionTime, randomUnit: randomUnit))
    }

    /// A connection is being opened.
    package mutating func connecting() {
        connections += 1
        deliveredOnThisConnection = false
    }

    /// The connection delivered an event: the stream is healthy, the backoff starts over.
    package mutating func delivered() {
        deliveredOnThisConnection = true
        failures = 0
    }

    /// The connection could not be opened (a transient failure).
    package mutating func connectionFailed(_ error: any Error) {
        failures += 1
        lastError = error
    }

    /// The connection ended, cleanly (`error` is `nil`) or not, after the server sent `serverRetry` (its last valid
    /// `retry` on this connection, if any).
    package mutating func connectionEnded(by error: (any Error)?, serverRetry: Duration?) {
        reconnectionTime = serverRetry ?? reconnectionTime
        // A server that closes at once, again and again, is failing too.
        if !deliveredOnThisConnection { failures += 1 }
        if let error {
            lastError = error
        } else if !deliveredOnThisConnection {
            lastError = TransportError(
                .connectionLost, detail: "the server closed the event stream before its first event")
        }
    }
}
