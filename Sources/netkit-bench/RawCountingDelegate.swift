import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetKitLock

/// The baseline of the `stream` case: a raw session-level `URLSessionDataDelegate` that only counts the bytes
/// it is handed (and, when asked, the line ends among them), the least any streaming client on Linux can do.
///
/// `@unchecked Sendable` because `NSObject` is not `Sendable`; its only mutable state is `transfers`, a `Lock`.
final class RawCountingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Transfer {
        var bytes = 0
        var lineEnds = 0
        let countsLines: Bool
        let waiter: CheckedContinuation<(bytes: Int, lineEnds: Int), any Error>
    }

    private let transfers = Lock<[Int: Transfer]>([:])

    /// GETs `url` through `session` (whose delegate this is) and returns the body's size and line ends.
    func fetch(_ url: URL, in session: URLSession, countingLines: Bool = false) async throws -> (
        bytes: Int, lineEnds: Int
    ) {
        try await withCheckedThrowingContinuation { continuation in
            let task = session.dataTask(with: url)
            transfers.withLock { $0[task.taskIdentifier] = Transfer(countsLines: countingLines, waiter: continuation) }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let countsLines = transfers.withLock { $0[dataTask.taskIdentifier]?.countsLines ?? false }
        let lineEnds = countsLines ? data.withUnsafeBytes { Self.lineEnds(in: $0) } : 0
        transfers.withLock {
            $0[dataTask.taskIdentifier]?.bytes += data.count
            $0[dataTask.taskIdentifier]?.lineEnds += lineEnds
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            transfer.waiter.resume(throwing: error)
        } else {
            transfer.waiter.resume(returning: (transfer.bytes, transfer.lineEnds))
        }
    }

    /// Line ends found with `memchr`, as a fast splitter would find them.
    private static func lineEnds(in buffer: UnsafeRawBufferPointer) -> Int {
        guard var cursor = buffer.baseAddress else { return 0 }
        let end = cursor + buffer.count
        var count = 0
        while cursor < end, let found = memchr(cursor, 0x0A, end - cursor) {
            count += 1
            cursor = UnsafeRawPointer(found) + 1
        }
        return count
    }
}

#if canImport(FoundationNetworking)
/// A delegate queue that runs each callback at once on URLSession's work queue, as `URLSessionTransport` does on
/// Linux: the fastest a session-level delegate can be there, for a second baseline.
///
/// `@unchecked Sendable`: `OperationQueue` is not `Sendable`; this subclass adds no state.
final class InlineCallbackQueue: OperationQueue, @unchecked Sendable {
    override func addOperation(_ block: @escaping @Sendable () -> Void) { block() }
    override func addOperation(_ operation: Operation) { operation.start() }
}
#endif
