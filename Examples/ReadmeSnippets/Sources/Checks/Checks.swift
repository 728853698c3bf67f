// What every snippet program's main.swift uses to report its checks.
import Foundation

/// Prints `ok: what` when `condition` holds; otherwise prints `FAILED: what` and ends the program with status 1.
public func check(_ condition: Bool, _ what: String) {
    guard condition else {
        print("FAILED: \(what)")
        exit(1)
    }
    print("ok: \(what)")
}

/// The first element of `stream`: how the checks wait for a completion handler.
public func firstValue<T: Sendable>(of stream: AsyncStream<T>) async -> T? {
    for await value in stream { return value }
    return nil
}
