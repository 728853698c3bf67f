import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore
import Synchronization

/// The session-level delegate of a ``URLSessionTransport``: routes each task's callbacks to its waiter.
///
/// Session-level, not per-task: on Linux a task delegate gets no data or completion callbacks, and the
/// session delegate's `didReceive data` is the only way to see a body as it arrives.
///
/// `@unchecked Sendable` because `NSObject` is not `Sendable`; the class adds no state of its own besides
/// `transfers`, a `Mutex`, so every access from URLSession's delegate queue and from the transport is
/// serialised by that lock.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// One task's waiter and body stream.
    struct Transfer {
        var head: CheckedContinuation<TransportResponse, any Error>?
        let body: AsyncThrowingStream<Data, any Error>.Continuation
        /// Handed out with the head and then forgotten: once the consumer drops it, the stream's
        /// termination cancels the task.
        var bodyStream: AsyncThrowingStream<Data, any Error>?
        let progress: NetworkProgress?
        let uploadLength: Int64?
        let reportsDownload: Bool
        let origin: URL?
        var received: Int64 = 0
        var expected: Int64 = -1
    }

    private let transfers = Mutex<[Int: Transfer]>([:])

    /// Registers a task before it is resumed, so no callback can arrive for an unknown task.
    func register(_ task: URLSessionTask, transfer: Transfer) {
        transfers.withLock { $0[task.taskIdentifier] = transfer }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        defer { completionHandler(.allow) }
        guard let http = response as? HTTPURLResponse else {
            resumeHead(of: dataTask, with: .failure(NetworkError.invalidResponse))
            dataTask.cancel()
            return
        }
        // libcurl passes the interim 100 Continue on to the delegate; the real head follows.
        guard http.statusCode >= 200 else { return }
        let response: TransportResponse? = transfers.withLock { transfers in
            guard var transfer = transfers[dataTask.taskIdentifier], let stream = transfer.bodyStream else { return nil }
            transfer.expected = http.expectedContentLength
            transfer.bodyStream = nil
            transfers[dataTask.taskIdentifier] = transfer
            return TransportResponse(head: http, body: ResponseBody(stream))
        }
        if let response { resumeHead(of: dataTask, with: .success(response)) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let update: (NetworkProgress, Int64, Int64)? = transfers.withLock { transfers in
            guard var transfer = transfers[dataTask.taskIdentifier] else { return nil }
            transfer.body.yield(data)
            transfer.received += Int64(data.count)
            transfers[dataTask.taskIdentifier] = transfer
            guard transfer.reportsDownload, let progress = transfer.progress else { return nil }
            return (progress, transfer.received, transfer.expected)
        }
        if let (progress, received, expected) = update { progress.report(completed: received, of: expected) }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        let target: (NetworkProgress, Int64)? = transfers.withLock { transfers in
            guard let transfer = transfers[task.taskIdentifier], let progress = transfer.progress,
                  !transfer.reportsDownload
            else { return nil }
            // Streamed bodies report 0 as expected total on Linux; the payload knows its own length.
            return (progress, transfer.uploadLength ?? totalBytesExpectedToSend)
        }
        if let (progress, total) = target { progress.report(completed: totalBytesSent, of: total) }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let origin = transfers.withLock { $0[task.taskIdentifier]?.origin }
        completionHandler(RedirectPolicy.request(request, redirectedFrom: origin))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let waiter = transfer.head {
            waiter.resume(throwing: error ?? URLError(.badServerResponse))
        }
        // A body shorter than its Content-Length arrives here as an error (libcurl and Apple's stack both
        // check); counting bytes here would misjudge HEAD responses and decompressed bodies.
        if let error {
            transfer.body.finish(throwing: Self.bodyError(error, afterHead: transfer.head == nil))
        } else {
            transfer.body.finish()
        }
    }

    /// libcurl reports a connection that closed mid-body as code -1 ("transfer closed with N bytes remaining");
    /// Apple's stack says `networkConnectionLost`. NetKit says the latter on both, keeping the original beneath.
    private static func bodyError(_ error: any Error, afterHead: Bool) -> any Error {
        guard afterHead, let urlError = error as? URLError, urlError.code == .unknown else { return error }
        var info = urlError.userInfo
        info[NSUnderlyingErrorKey] = urlError
        return URLError(.networkConnectionLost, userInfo: info)
    }

    private func resumeHead(of task: URLSessionTask, with result: Result<TransportResponse, any Error>) {
        let waiter = transfers.withLock { transfers -> CheckedContinuation<TransportResponse, any Error>? in
            let waiter = transfers[task.taskIdentifier]?.head
            transfers[task.taskIdentifier]?.head = nil
            return waiter
        }
        waiter?.resume(with: result)
    }
}
