/// Errors thrown by ``LoopbackServer``.
package enum LoopbackServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A socket call failed while setting the server up.
    case socketFailed(operation: String, errno: Int32)
    /// A `waitFor…` call gave up: `counter` names what was awaited, `expected` the target, `reached` the value at the time.
    case timedOut(counter: String, expected: Int, reached: Int)
    /// The server was stopped while a `waitFor…` call was still waiting.
    case stopped

    /// A readable explanation, for test failure messages.
    package var description: String {
        switch self {
        case let .socketFailed(operation, code):
            return "LoopbackServer: \(operation) failed (errno \(code))"
        case let .timedOut(counter, expected, reached):
            return "LoopbackServer: timed out waiting for \(expected) \(counter) (got \(reached))"
        case .stopped:
            return "LoopbackServer: stopped while waiting"
        }
    }
}
