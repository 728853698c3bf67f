import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetKitLock

/// A session delegate for raw URLSession upload tests: records progress, the response body
/// and the completion, and lets a test await them without polling.
///
/// `@unchecked Sendable` because `NSObject` is not `Sendable`; all state is in `state`, a `Lock`.
final class UploadObserver: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct State {
        var sent: [Int64] = []
        var expectedToSend: Int64 = -1
        var status = 0
        var body = Data()
        var completion: Result<Void, any Error>?
        var completionWaiter: CheckedContinuation<Result<Void, any Error>, Never>?
        var progressWaiter: (threshold: Int64, continuation: CheckedContinuation<Void, Never>)?
        var onComplete: (@Sendable () -> Void)?
    }

    let state = Lock(State())

    var sent: [Int64] { state.withLock { $0.sent } }
    var status: Int { state.withLock { $0.status } }

    /// Runs when the task completes, before waiters are resumed (e.g. to close the body, as a
    /// transport does).
    func onComplete(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.onComplete = action }
    }

    /// Suspends until the task has completed; its error, or `nil` on success.
    func completion(timeout: Duration = .seconds(20)) async throws -> (any Error)? {
        try await withTimeout(timeout) {
            let result = await withCheckedContinuation { continuation in
                let done = self.state.withLock { state -> Result<Void, any Error>? in
                    if let completion = state.completion { return completion }
                    state.completionWaiter = continuation
                    return nil
                }
                if let done { continuation.resume(returning: done) }
            }
            if case let .failure(error) = result { return error }
            return nil
        }
    }

    /// Suspends until at least `bytes` body bytes were reported sent.
    func progress(atLeast bytes: Int64, timeout: Duration = .seconds(20)) async throws {
        try await withTimeout(timeout) {
            await withCheckedContinuation { continuation in
                let reached = self.state.withLock { state -> Bool in
                    if (state.sent.last ?? 0) >= bytes || state.completion != nil { return true }
                    state.progressWaiter = (bytes, continuation)
                    return false
                }
                if reached { continuation.resume() }
            }
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.sent.append(totalBytesSent)
            state.expectedToSend = totalBytesExpectedToSend
            guard let waiter = state.progressWaiter, totalBytesSent >= waiter.threshold else { return nil }
            state.progressWaiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        state.withLock { $0.status = (response as? HTTPURLResponse)?.statusCode ?? -1 }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { $0.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let action = state.withLock { $0.onComplete }
        action?()
        let (completionWaiter, progressWaiter) = state.withLock { state in
            state.completion = error.map { .failure($0) } ?? .success(())
            defer {
                state.completionWaiter = nil
                state.progressWaiter = nil
            }
            return (state.completionWaiter, state.progressWaiter?.continuation)
        }
        completionWaiter?.resume(returning: error.map { .failure($0) } ?? .success(()))
        progressWaiter?.resume()
    }
}

/// Thrown when an awaited event did not happen in time.
struct TimedOut: Error {}

/// Runs `operation`, failing with ``TimedOut`` after `timeout`; the sleep bounds the wait and
/// synchronises nothing.
func withTimeout<T: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws
    -> T
{
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw TimedOut()
        }
        guard let first = try await group.next() else { throw TimedOut() }
        group.cancelAll()
        return first
    }
}
