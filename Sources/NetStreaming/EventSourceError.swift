/// Why a reconnecting ``EventSource`` stopped, when it was not the server's `204 No Content`.
public enum EventSourceError: Error, Sendable, CustomStringConvertible {
    /// More connection attempts in a row failed than the policy allows; `lastError` is the last failure.
    case reconnectLimitReached(attempts: Int, lastError: any Error)

    /// A sentence naming the failure.
    public var description: String {
        switch self {
        case .reconnectLimitReached(let attempts, let lastError):
            "The event source gave up after \(attempts) failed connection attempts in a row; the last one: \(lastError)"
        }
    }
}
