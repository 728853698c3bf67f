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
/// `@unchecked Sendable` because `NSObject` is not `Sendable`; the class's mutable state is `transfers`, a
/// `Mutex`, so every access from URLSession's delegate queue and from the transport is serialised by that lock.
/// `challengeHandler` is immutable and only ever called from URLSession's delegate queue, exactly as the session
/// it was borrowed from would have called it.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// One task's waiter and body stream.
    struct Transfer {
        var head: CheckedContinuation<TransportResponse, any Error>?
        /// Where the body's chunks go; bounded, so a consumer that falls behind fails loudly.
        let body: ResponseBody.Writer
        /// Handed out with the head and then forgotten: once the consumer stops early or goes away, the
        /// body's abandonment cancels the task.
        var unreadBody: ResponseBody?
        let progress: NetworkProgress?
        let uploadLength: Int64?
        let reportsDownload: Bool
        let origin: URL?
        var received: Int64 = 0
        var expected: Int64 = -1
        /// A 401 that URLSession on Linux reports before it raises its authentication challenge: held back (with
        /// its body) until the retried request's head arrives, or delivered when no retry comes.
        var challengedHead: (head: HTTPURLResponse, body: Data)?
        /// Called when the task has completed, whichever way (closes a streamed upload's files at once:
        /// URLSession keeps its body stream for an unspecified time after completion).
        let completed: (@Sendable () -> Void)?
    }

    private let transfers = Mutex<[Int: Transfer]>([:])
    /// The delegate of a session the transport was built from: authentication challenges (certificate pinning,
    /// client certificates, HTTP authentication) still go to it.
    private let challengeHandler: (any URLSessionDelegate)?

    init(challengeHandler: (any URLSessionDelegate)? = nil) {
        self.challengeHandler = challengeHandler
    }

    func urlSession(
        _ session: URLSession,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let answer = Self.resolvingDefaultHandling(completionHandler, for: challenge, in: session)
        guard let handler = challengeHandler else { return answer(.performDefaultHandling, nil) }
        #if canImport(FoundationNetworking)
        handler.urlSession(session, didReceive: challenge, completionHandler: answer)
        #else
        if handler.urlSession?(session, didReceive: challenge, completionHandler: answer) == nil {
            answer(.performDefaultHandling, nil)
        }
        #endif
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let handler = challengeHandler as? any URLSessionTaskDelegate else {
            return urlSession(session, didReceive: challenge, completionHandler: completionHandler)
        }
        let answer = Self.resolvingDefaultHandling(completionHandler, for: challenge, in: session)
        #if canImport(FoundationNetworking)
        handler.urlSession(session, task: task, didReceive: challenge, completionHandler: answer)
        #else
        if handler.urlSession?(session, task: task, didReceive: challenge, completionHandler: answer) == nil {
            urlSession(session, didReceive: challenge, completionHandler: completionHandler)
        }
        #endif
    }

    /// On Linux, answering an HTTP authentication challenge with `.performDefaultHandling` leaves the task
    /// hanging forever (measured with libcurl 7.88.1, Swift 6.3.1): do what the default should do instead:
    /// use the configuration's stored credential once, otherwise give up, which delivers the server's 401.
    private static func resolvingDefaultHandling(
        _ completion: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void,
        for challenge: URLAuthenticationChallenge,
        in session: URLSession
    ) -> @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void {
        #if canImport(FoundationNetworking)
        let stored = challenge.previousFailureCount == 0
            ? session.configuration.urlCredentialStorage?.defaultCredential(for: challenge.protectionSpace) : nil
        return { disposition, credential in
            guard disposition == .performDefaultHandling else { return completion(disposition, credential) }
            if let stored { completion(.useCredential, stored) } else { completion(.cancelAuthenticationChallenge, nil) }
        }
        #else
        return completion
        #endif
    }

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
            guard var transfer = transfers[dataTask.taskIdentifier], let body = transfer.unreadBody else { return nil }
            if http.statusCode == 401, awaitsChallenge(after: http) {
                transfer.challengedHead = (http, Data())
                transfers[dataTask.taskIdentifier] = transfer
                return nil
            }
            transfer.challengedHead = nil
            transfer.expected = http.expectedContentLength
            transfer.unreadBody = nil
            transfers[dataTask.taskIdentifier] = transfer
            return TransportResponse(head: http, body: body)
        }
        if let response { resumeHead(of: dataTask, with: .success(response)) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let update: (ResponseBody.Writer, NetworkProgress?, Int64, Int64)? = transfers.withLock { transfers in
            guard var transfer = transfers[dataTask.taskIdentifier] else { return nil }
            if var challenged = transfer.challengedHead {
                challenged.body.append(data.prefix(Self.challengedBodyLimit - challenged.body.count))
                transfer.challengedHead = challenged
                transfers[dataTask.taskIdentifier] = transfer
                return nil
            }
            transfer.received += Int64(data.count)
            transfers[dataTask.taskIdentifier] = transfer
            return (transfer.body, transfer.reportsDownload ? transfer.progress : nil, transfer.received, transfer.expected)
        }
        guard let (body, progress, received, expected) = update else { return }
        // Outside the lock: handing a chunk over may resume the consumer, and a refusal cancels the task.
        body.yield(data)
        progress?.report(completed: received, of: expected)
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
        transfer.completed?()
        if let waiter = transfer.head, let (head, body) = transfer.challengedHead {
            // The borrowed delegate declined the challenge (or it failed again): the 401 is the answer.
            transfer.body.finish()
            waiter.resume(returning: TransportResponse(head: head, body: ResponseBody(data: body)))
            return
        }
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

    /// The most bytes of a held-back 401 body kept.
    private static let challengedBodyLimit = 64 * 1024

    /// Whether URLSession will raise an authentication challenge for this 401 (and may send the request again):
    /// on Linux it does so for Basic and Digest challenges, after it has reported the 401. Apple's stack asks
    /// before it reports any response.
    private func awaitsChallenge(after response: HTTPURLResponse) -> Bool {
        #if canImport(FoundationNetworking)
        guard let header = response.value(forHTTPHeaderField: "WWW-Authenticate") else { return false }
        return header.split(separator: ",").contains { challenge in
            let scheme = challenge.drop { $0 == " " }.prefix { $0 != " " }.lowercased()
            return scheme == "basic" || scheme == "digest"
        }
        #else
        false
        #endif
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
