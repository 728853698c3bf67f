import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore
import NetKitLock

/// The session-level delegate of a ``URLSessionTransport``: routes each task's callbacks to its transfer's
/// ``TransferStateMachine`` under its lock, and carries out the actions the machine returns outside it.
///
/// Session-level, not per-task: on Linux a task delegate gets no data or completion callbacks, and the
/// session delegate's `didReceive data` is the only way to see a body as it arrives.
///
/// On Linux its callbacks run inline on URLSession's work queue (``InlineDelegateQueue``): none of them calls back
/// into URLSession synchronously or blocks; authentication challenges are answered from ``challengeQueue``.
///
/// `@unchecked Sendable` because `NSObject` is not `Sendable`; the class's mutable state is `state`, a
/// `Lock`, so every access from URLSession's queues and from the transport is serialised by that lock.
/// `challengeHandler` is immutable and only ever called from ``challengeQueue``, a serial queue, one challenge at
/// a time as the session it was borrowed from would have called it.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// The machine of a transfer the delegate runs: its waiter is the `send` call waiting for the head.
    typealias Machine = TransferStateMachine<CheckedContinuation<TransportResponse, any Error>, ResponseBody.Writer>

    /// One task's decisions and what carries them out.
    struct Transfer {
        var machine: Machine
        let reporter: Reporter
        /// Called when the task has completed, whichever way (closes a streamed upload's files at once:
        /// URLSession keeps its body stream for an unspecified time after completion).
        let completed: (@Sendable () -> Void)?
        /// Bodies made for a resend, closed with the transfer.
        var resentBodies: [SharedUploadReader] = []

        init(
            head: CheckedContinuation<TransportResponse, any Error>,
            road: Machine.Road,
            progress: NetworkProgress?,
            onSent: (@Sendable (TransportRequest.SentPart) -> Void)?,
            hasBody: Bool,
            uploadLength: Int64?,
            origin: URL?,
            method: HTTPRequestMethod?,
            completed: (@Sendable () -> Void)?,
            resend: BodyResend = .nothingToSend
        ) {
            let configuration = Machine.Configuration(
                reportsProgress: progress != nil, tellsSent: onSent != nil, hasBody: hasBody,
                uploadLength: uploadLength,
                host: origin?.host(), method: method, resend: resend)
            self.machine = Machine(waiter: head, road: road, configuration: configuration)
            self.reporter = Reporter(progress: progress, onSent: onSent)
            self.completed = completed
        }
    }

    /// Where a transfer's progress is reported, and, after it, its response and body's end handed over: a serial
    /// queue of the transfer's own when someone observes its progress. Observers run user code (Observation's
    /// `onChange`, SwiftUI), which must never run on URLSession's work queue: on Linux every session's queue
    /// targets one serial queue for the whole process, so a slow observer there would stall every transfer.
    struct Reporter: Sendable {
        let progress: NetworkProgress?
        /// Where what was sent is told (``NetCore/TransportRequest/onSent``): in order with the progress, and before
        /// the response is handed out.
        let onSent: (@Sendable (TransportRequest.SentPart) -> Void)?
        let observers: DispatchQueue?

        init(progress: NetworkProgress?, onSent: (@Sendable (TransportRequest.SentPart) -> Void)? = nil) {
            self.progress = progress
            self.onSent = onSent
            self.observers = progress == nil ? nil : DispatchQueue(label: "NetKit.URLSessionTransport.progress")
        }

        /// Runs `work` after the progress reported so far, off the work queue, when someone observes progress;
        /// at once otherwise.
        func inOrder(_ work: @escaping @Sendable () -> Void) {
            if let observers { observers.async(execute: work) } else { work() }
        }
    }

    /// Every task's transfer.
    struct State {
        var transfers: [Int: Transfer] = [:]
    }

    private let state = Lock(State())
    /// The delegate of a session the transport was built from: the authentication challenges the platform raises
    /// still go to it (on Linux HTTP authentication only: no server trust, so the transport refuses a delegate that
    /// may pin certificates unless it adopts ``SystemTrustDelegate``).
    private let challengeHandler: (any URLSessionDelegate)?
    /// Where challenges are answered: off URLSession's work queue, because FoundationNetworking suspends and
    /// resumes the task (waiting on that queue) when it is given a credential, and a borrowed delegate may answer
    /// at once or block.
    private let challengeQueue = DispatchQueue(label: "NetKit.URLSessionTransport.challenges")

    init(challengeHandler: (any URLSessionDelegate)? = nil) {
        self.challengeHandler = challengeHandler
    }

    func urlSession(
        _ session: URLSession,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        challengeQueue.async {
            self.answerSessionChallenge(challenge, in: session, completionHandler: completionHandler)
        }
    }

    private func answerSessionChallenge(
        _ challenge: URLAuthenticationChallenge,
        in session: URLSession,
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
        challengeQueue.async {
            guard let handler = self.challengeHandler as? any URLSessionTaskDelegate else {
                return self.answerSessionChallenge(challenge, in: session, completionHandler: completionHandler)
            }
            let answer = Self.resolvingDefaultHandling(completionHandler, for: challenge, in: session)
            #if canImport(FoundationNetworking)
            handler.urlSession(session, task: task, didReceive: challenge, completionHandler: answer)
            #else
            if handler.urlSession?(session, task: task, didReceive: challenge, completionHandler: answer) == nil {
                self.answerSessionChallenge(challenge, in: session, completionHandler: completionHandler)
            }
            #endif
        }
    }

    /// On Linux, answering an HTTP authentication challenge with `.performDefaultHandling` leaves the task
    /// hanging forever (measured with libcurl 7.88.1, Swift 6.3.1): the answer is resolved
    /// (``resolvedAnswer(_:_:stored:)``) with the configuration's stored credential, offered only before any failure.
    private static func resolvingDefaultHandling(
        _ completion: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void,
        for challenge: URLAuthenticationChallenge,
        in session: URLSession
    ) -> @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void {
        #if canImport(FoundationNetworking)
        let stored =
            challenge.previousFailureCount == 0
            ? session.configuration.urlCredentialStorage?.defaultCredential(for: challenge.protectionSpace) : nil
        return { disposition, credential in
            let (disposition, credential) = Self.resolvedAnswer(disposition, credential, stored: stored)
            completion(disposition, credential)
        }
        #else
        return completion
        #endif
    }

    /// Registers a task before it is resumed, so no callback can arrive for an unknown task.
    func register(_ task: URLSessionTask, transfer: Transfer) {
        state.withLock { $0.transfers[task.taskIdentifier] = transfer }
    }

    /// Feeds an event to `task`'s machine under the lock, in place (a gathered body is never copied); `nil` for a
    /// task the delegate does not know.
    private func step<Action>(
        _ task: URLSessionTask, _ event: (inout Machine) -> Action
    ) -> (action: Action, reporter: Reporter)? {
        state.withLock { state in
            // By index, never by copying the transfer out: a copy would make the next append copy the whole body.
            guard let index = state.transfers.index(forKey: task.taskIdentifier) else { return nil }
            let action = event(&state.transfers.values[index].machine)
            return (action, state.transfers.values[index].reporter)
        }
    }

    /// Cancels `task`. Not synchronously: on Linux the callbacks run on the work queue that cancel() waits for.
    private static func cancel(_ task: URLSessionTask) {
        DispatchQueue.global().async { task.cancel() }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        defer { completionHandler(.allow) }
        let head = (response as? HTTPURLResponse).map { Machine.ReceivedHead($0, at: .now) }
        let taken = step(dataTask) { machine in
            let sent = machine.sentParts(atHeadOf: head?.head.statusCode ?? 200)
            return (sent, head.map { machine.receivedHead($0) } ?? machine.receivedNonHTTPHead())
        }
        guard let ((sent, action), reporter) = taken else { return }
        if let onSent = reporter.onSent, sent != Machine.SentNews() { reporter.inOrder { sent.tell(onSent) } }
        switch action {
        case .none:
            break
        case .handOut(let waiter, let response):
            reporter.inOrder { waiter.resume(returning: response) }
        case .handOutAndCancel(let waiter, let response):
            if let waiter { reporter.inOrder { waiter.resume(returning: response) } }
            Self.cancel(dataTask)
        case .failAndCancel(let waiter, let error):
            if let waiter { reporter.inOrder { waiter.resume(throwing: error) } }
            Self.cancel(dataTask)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let now = ContinuousClock.now
        guard let ((action, received), reporter) = step(dataTask, { $0.receivedChunk(data, at: now) }) else { return }
        // Outside the lock: handing a chunk over may resume the consumer, and a stop cancels the task.
        if let received, let progress = reporter.progress {
            reporter.inOrder { progress.reportReceived(received.received, of: received.expected) }
        }
        switch action {
        case .drop, .gathered:
            break
        case .stream(let writer):
            writer.yield(data)
        case .cut(let waiter, let response):
            reporter.inOrder { waiter?.resume(returning: response) }
            Self.cancel(dataTask)
        case .stop(let error, let waiter, let writer):
            reporter.inOrder {
                waiter?.resume(throwing: error)
                writer?.finish(throwing: error)
            }
            Self.cancel(dataTask)
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        let taken = step(task) { machine in
            (
                machine.sentParts(total: totalBytesSent, expectedToSend: totalBytesExpectedToSend),
                machine.sentBody(total: totalBytesSent, expectedToSend: totalBytesExpectedToSend)
            )
        }
        guard let ((sent, report), reporter) = taken else { return }
        if let onSent = reporter.onSent, sent != Machine.SentNews() { reporter.inOrder { sent.tell(onSent) } }
        if let report, let progress = reporter.progress {
            reporter.inOrder { progress.reportSent(report.sent, of: report.total) }
        }
    }

    /// Hands every redirect back: the engine decides each hop (``NetCore/RedirectPolicy``), so that the cookie jar,
    /// the cache, the logs and the credential rules see it the same on every transport.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        let id = task.taskIdentifier
        if case .makeStream(let make)? = step(task, { $0.bodyRequestedAgain() })?.action {
            if let replacement = make() {
                state.withLock { $0.transfers[id]?.resentBodies.append(replacement.reader) }
                return completionHandler(replacement.stream)
            }
            _ = step(task) { $0.bodyCouldNotBeReadAgain() }
        }
        completionHandler(nil)
        Self.cancel(task)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard var transfer = state.withLock({ $0.transfers.removeValue(forKey: task.taskIdentifier) }) else { return }
        transfer.completed?()
        for body in transfer.resentBodies { body.close() }
        let completion = transfer.machine.completed(with: error)
        let reporter = transfer.reporter
        // After the progress reported so far: a consumer that reaches the end finds every byte counted.
        if let (waiter, outcome) = completion.resume { reporter.inOrder { waiter.resume(with: outcome) } }
        if let (writer, failure) = completion.finish { reporter.inOrder { writer.finish(throwing: failure) } }
    }
}

extension SessionDelegate.TransferStateMachine.ReceivedHead {
    /// What the machine needs of URLSession's response, read as the headers' own words.
    ///
    /// The fields are read from the converted head, as bytes: asking the response would look each name up through
    /// its bridged dictionary and trim with `CharacterSet`, on the work queue every session of a Linux process shares.
    init(_ response: HTTPURLResponse, at arrival: ContinuousClock.Instant) {
        let head = HTTPResponseHead(response)
        self.init(
            head: head,
            expectedLength: response.expectedContentLength >= 0 ? response.expectedContentLength : nil,
            contentEncoding: head.headerFields.value(for: "Content-Encoding"),
            declaredLength: head.declaredContentLength,
            wwwAuthenticate: head.headerFields.value(for: "WWW-Authenticate"),
            at: arrival)
    }
}
