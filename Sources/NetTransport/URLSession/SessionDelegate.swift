import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore
import NetKitLock

/// The session-level delegate of a ``URLSessionTransport``: routes each task's callbacks to its waiter.
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
    /// One task's waiter and the road its body takes.
    struct Transfer {
        var head: CheckedContinuation<TransportResponse, any Error>?
        var delivery: Delivery
        let progress: NetworkProgress?
        let uploadLength: Int64?
        /// Where the request was sent: its host names the server in errors.
        let origin: URL?
        var received: Int64 = 0
        var expected: Int64?
        /// A 401 that URLSession on Linux reports before it raises its authentication challenge: held back (with
        /// its body) until the retried request's head arrives, or delivered when no retry comes.
        var challengedHead: (head: HTTPURLResponse, body: Data, at: ContinuousClock.Instant)?
        /// Called when the task has completed, whichever way (closes a streamed upload's files at once:
        /// URLSession keeps its body stream for an unspecified time after completion).
        let completed: (@Sendable () -> Void)?
        /// Where the transfer's progress is reported, and, after it, its response handed over: a serial queue of the
        /// transfer's own when someone observes its progress. Observers run user code (Observation's `onChange`,
        /// SwiftUI), which must never run on URLSession's work queue: on Linux every session's queue targets one
        /// serial queue for the whole process, so a slow observer there would stall every transfer.
        let observers: DispatchQueue?

        /// What to do when libcurl asks for the body again.
        let resend: BodyResend
        /// Bodies made for a resend, closed with the transfer.
        var resentBodies: [SharedUploadReader] = []
        /// Why NetKit stopped the transfer itself; the error the task's cancellation is reported as.
        var stopped: TransportError?
        /// Set when the head names content codings, which libcurl decodes: the most decoded bytes the body may bring
        /// (``NetCore/ContentCoding/decodedLimit(declaredLength:)``; `Int64.max` when no length is declared).
        var decodedLimit: Int64?
        /// What FoundationNetworking holds for the body's small chunks: a flood of them is stopped at its budget.
        var tinyChunks: TinyChunkBudget

        init(
            head: CheckedContinuation<TransportResponse, any Error>?,
            delivery: Delivery,
            progress: NetworkProgress?,
            uploadLength: Int64?,
            origin: URL?,
            completed: (@Sendable () -> Void)?,
            resend: BodyResend = .nothingToSend,
            tinyChunks: TinyChunkBudget.Limits = .standard
        ) {
            self.head = head
            self.delivery = delivery
            self.progress = progress
            self.uploadLength = uploadLength
            self.origin = origin
            self.completed = completed
            self.resend = resend
            self.tinyChunks = TinyChunkBudget(limits: tinyChunks)
            self.observers = progress == nil ? nil : DispatchQueue(label: "NetKit.URLSessionTransport.progress")
        }

        /// Runs `work` after the progress reported so far, off the work queue, when someone observes progress;
        /// at once otherwise.
        func inOrder(_ work: @escaping @Sendable () -> Void) {
            SessionDelegate.run(work, after: observers)
        }
    }

    /// How a task's body reaches the caller.
    enum Delivery {
        /// As it arrives, handed out with the head: chunks go to `writer`, a bounded buffer, so a consumer that
        /// falls behind fails loudly. `unread` is handed out with the head and then forgotten: once the consumer
        /// stops early or goes away, the body's abandonment cancels the task.
        case streamed(writer: ResponseBody.Writer, unread: ResponseBody?)
        /// Gathered here (in ``State/gathered``) and handed out complete with the head when the transfer ends,
        /// at most the limit for the head's status + 1 bytes (``TransportRequest/wholeBody``). `head` is the
        /// response head once it has arrived; `delivered` once the response has been handed out early because
        /// the body grew past its limit.
        case whole(WholeBodyLimits, head: ArrivedHead?, delivered: Bool)
    }

    /// Whether a request's body may be sent a second time within one task, when libcurl asks for it again.
    ///
    /// libcurl sends a request on a kept-alive connection; when the server closes that connection without answering,
    /// libcurl sends the request again on a new one, and asks FoundationNetworking to rewind the body, which asks the
    /// session delegate for a new body stream (`needNewBodyStream`). Without one, the request goes out with its
    /// headers and no body and waits, spinning a core, until its idle timeout (measured on Linux, Swift 6.3.1).
    /// A stream of a body that can be read again is given for an idempotent request; any other request is stopped
    /// at once with ``TransportError/Kind/connectionReset``: a request that is not idempotent is never sent twice
    /// (the first may have reached the server), and a body in memory cannot be handed over again (answering with a
    /// stream for it crashes FoundationNetworking).
    enum BodyResend: Sendable {
        /// No body: nothing to rewind.
        case nothingToSend
        /// A fresh stream of the body and the reader to close with the transfer.
        case stream(@Sendable () -> (stream: InputStream, reader: SharedUploadReader)?)
        /// The body cannot be sent again, for this reason.
        case refuse(String)

        init(for request: TransportRequest) {
            let idempotent = request.method.isIdempotent || request.value(forHeader: "Idempotency-Key") != nil
            guard idempotent else {
                self = .refuse(
                    "the server closed the kept-alive connection without answering, and the request, which is not "
                        + "idempotent, would have been sent again (it may have reached the server)")
                return
            }
            guard let source = request.body, source.inMemoryData == nil, source.isReplayable else {
                self = .refuse(
                    "the server closed the kept-alive connection without answering, and URLSession cannot send this "
                        + "request's body again on a new connection")
                return
            }
            self = .stream {
                guard let stream = try? UploadReaderInputStream(source: source) else { return nil }
                return (stream, stream.reader)
            }
        }
    }

    /// A response head as it arrived, in NetKit's words.
    struct ArrivedHead {
        let head: HTTPResponseHead
        let at: ContinuousClock.Instant

        func response(with body: ResponseBody) -> TransportResponse {
            TransportResponse(head: head, body: body, headReceivedAt: at)
        }
    }

    /// Every task's transfer, and the bodies gathered for whole deliveries (apart, so that appending to one never
    /// copies it).
    struct State {
        var transfers: [Int: Transfer] = [:]
        var gathered: [Int: Data] = [:]
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
    /// hanging forever (measured with libcurl 7.88.1, Swift 6.3.1): do what the default should do instead:
    /// use the configuration's stored credential once, otherwise give up, which delivers the server's 401.
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
            guard disposition == .performDefaultHandling else { return completion(disposition, credential) }
            if let stored {
                completion(.useCredential, stored)
            } else {
                completion(.cancelAuthenticationChallenge, nil)
            }
        }
        #else
        return completion
        #endif
    }

    /// Registers a task before it is resumed, so no callback can arrive for an unknown task.
    func register(_ task: URLSessionTask, transfer: Transfer) {
        state.withLock { $0.transfers[task.taskIdentifier] = transfer }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        defer { completionHandler(.allow) }
        let arrival = ContinuousClock.now
        guard let http = response as? HTTPURLResponse else {
            resumeHead(of: dataTask, with: .failure(NetworkError.invalidResponse))
            // Not synchronously: on Linux this callback runs on the work queue that cancel() waits for.
            DispatchQueue.global().async { dataTask.cancel() }
            return
        }
        // libcurl passes the interim 100 Continue on to the delegate; the real head follows.
        guard http.statusCode >= 200 else { return }
        if let refusal = checkCodings(of: http, task: dataTask) { return refuse(dataTask, with: refusal) }
        let id = dataTask.taskIdentifier
        var refused = false
        let response: TransportResponse? = state.withLock { state in
            guard var transfer = state.transfers[id] else { return nil }
            if http.statusCode == 401, awaitsChallenge(after: http) {
                transfer.challengedHead = (http, Data(), arrival)
                state.transfers[id] = transfer
                return nil
            }
            transfer.challengedHead = nil
            transfer.expected = http.expectedContentLength >= 0 ? http.expectedContentLength : nil
            let arrived = ArrivedHead(head: HTTPResponseHead(http), at: arrival)
            var handedOut: TransportResponse?
            switch transfer.delivery {
            case .streamed(let writer, let unread?):
                transfer.delivery = .streamed(writer: writer, unread: nil)
                handedOut = arrived.response(with: unread)
            case .streamed:
                break
            case .whole(let limits, _, let delivered):
                if let method = dataTask.originalRequest?.httpMethod, let method = HTTPMethod(rawValue: method),
                    limits.refusesAtHead(arrived.head, method: method)
                {
                    // The body cannot fit: hand the head over now (the caller refuses it) and stop the transfer.
                    transfer.delivery = .whole(limits, head: arrived, delivered: true)
                    handedOut = arrived.response(with: .empty)
                    refused = true
                    break
                }
                transfer.delivery = .whole(limits, head: arrived, delivered: delivered)
                // Only what the caller keeps is reserved: a lying Content-Length cannot make the transport allocate.
                let limit = limits.limit(forStatus: http.statusCode)
                let reserved = min(
                    http.expectedContentLength, Int64(min(limit, ResponseBody.maximumUpfrontReservation)))
                var gathered = Data()
                if reserved > 0 { gathered.reserveCapacity(Int(reserved)) }
                state.gathered[id] = gathered
            }
            state.transfers[id] = transfer
            return handedOut
        }
        if let response { resumeHead(of: dataTask, with: .success(response)) }
        // Not synchronously: on Linux this callback runs on the work queue that cancel() waits for.
        if refused { DispatchQueue.global().async { dataTask.cancel() } }
    }

    /// Runs `work` on `observers` when a transfer has them (after the progress reported so far), at once otherwise.
    private static func run(_ work: @escaping @Sendable () -> Void, after observers: DispatchQueue?) {
        if let observers { observers.async(execute: work) } else { work() }
    }

    /// What a chunk leads to, decided under the lock and done outside it.
    private enum ChunkStep {
        case stream(ResponseBody.Writer)
        case gathered
        /// The whole body grew past its limit: hand the response out now and stop the transfer.
        case cut(CheckedContinuation<TransportResponse, any Error>?, TransportResponse)
        /// NetKit stopped the transfer: fail the waiter or the streamed body with `error` now, and cancel the task.
        case stop(
            TransportError, waiter: CheckedContinuation<TransportResponse, any Error>?, writer: ResponseBody.Writer?)
        case ignore
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        let (step, progress, observers): (ChunkStep, (NetworkProgress, Int64, Int64?)?, DispatchQueue?) =
            state.withLock { state in
                guard var transfer = state.transfers[id] else { return (.ignore, nil, nil) }
                if var challenged = transfer.challengedHead {
                    challenged.body.append(data.prefix(Self.challengedBodyLimit - challenged.body.count))
                    transfer.challengedHead = challenged
                    state.transfers[id] = transfer
                    return (.ignore, nil, nil)
                }
                // Stopped already: what arrives until the cancellation lands is dropped.
                guard transfer.stopped == nil else { return (.ignore, nil, nil) }
                // NetKit stops the transfer: the caller hears `error` now (the cancellation may land late), and
                // NetKit keeps nothing more of the body meanwhile.
                func stop(with error: TransportError) -> (ChunkStep, (NetworkProgress, Int64, Int64?)?, DispatchQueue?)
                {
                    transfer.stopped = error
                    var writer: ResponseBody.Writer?
                    if case .streamed(let streamed, _) = transfer.delivery { writer = streamed }
                    let waiter = transfer.head
                    transfer.head = nil
                    state.gathered[id] = nil
                    state.transfers[id] = transfer
                    return (.stop(error, waiter: waiter, writer: writer), nil, transfer.observers)
                }
                if Self.countsTinyChunks, transfer.tinyChunks.record(chunkOf: data.count, at: .now) == .exceeded {
                    // The cancellation cannot land before the flood pauses (see TinyChunkBudget).
                    var flood = TransportError(
                        .badResponse, host: transfer.origin?.host(), detail: transfer.tinyChunks.explanation)
                    // Sent again, the request would meet the same flood, at the same cost.
                    flood.isPermanent = true
                    return stop(with: flood)
                }
                transfer.received += Int64(data.count)
                if let limit = transfer.decodedLimit, transfer.received > limit {
                    let encoded = limit / Int64(ContentCoding.decompressionRatio)
                    let error = ContentCoding.bomb(
                        host: transfer.origin?.host(), encoded: encoded, decoded: transfer.received)
                    return stop(with: error)
                }
                let progress = transfer.progress.map { ($0, transfer.received, transfer.expected) }
                let step: ChunkStep
                switch transfer.delivery {
                case .streamed(let writer, _):
                    step = .stream(writer)
                case .whole(_, _, true), .whole(_, nil, _):
                    step = .ignore
                case .whole(let limits, let head?, false):
                    let limit = limits.limit(forStatus: head.head.statusCode)
                    // In place: the gathered body is the dictionary's only reference, so appending never copies it.
                    let room = limit + 1 - (state.gathered[id]?.count ?? 0)
                    state.gathered[id, default: Data()].append(data.prefix(max(0, room)))
                    if data.count < room {
                        step = .gathered
                    } else {
                        // Past the limit: the caller keeps no more, so neither does the transfer.
                        transfer.delivery = .whole(limits, head: head, delivered: true)
                        let body = state.gathered.removeValue(forKey: id) ?? Data()
                        step = .cut(transfer.head, head.response(with: ResponseBody(data: body)))
                        transfer.head = nil
                    }
                }
                state.transfers[id] = transfer
                return (step, progress, transfer.observers)
            }
        // Outside the lock: handing a chunk over may resume the consumer, and a refusal cancels the task.
        if let (progress, received, expected) = progress {
            Self.run({ progress.reportReceived(received, of: expected) }, after: observers)
        }
        switch step {
        case .stream(let writer):
            writer.yield(data)
        case .cut(let waiter, let response):
            Self.run({ waiter?.resume(returning: response) }, after: observers)
            // Not synchronously: on Linux this callback runs on the work queue that cancel() waits for.
            DispatchQueue.global().async { dataTask.cancel() }
        case .stop(let error, let waiter, let writer):
            Self.run(
                {
                    waiter?.resume(throwing: error)
                    writer?.finish(throwing: error)
                }, after: observers)
            // Not synchronously: on Linux this callback runs on the work queue that cancel() waits for.
            DispatchQueue.global().async { dataTask.cancel() }
        case .gathered, .ignore:
            break
        }
    }

    /// Applies NetKit's content-coding plan (``NetCore/ContentCoding``) to a head: the error of one it refuses (a
    /// coding NetKit does not decode, although libcurl may: `br`, `zstd`); for one libcurl decodes, sets the
    /// transfer's ``Transfer/decodedLimit``.
    private func checkCodings(of http: HTTPURLResponse, task: URLSessionDataTask) -> TransportError? {
        guard let field = http.value(forHTTPHeaderField: "Content-Encoding") else { return nil }
        let method = task.originalRequest?.httpMethod.flatMap { HTTPMethod(rawValue: $0) } ?? .get
        let declared = http.value(forHTTPHeaderField: "Content-Length").flatMap {
            Int64($0.trimmingCharacters(in: .whitespaces))
        }
        let plan = ContentCoding(
            contentEncoding: [field], statusCode: http.statusCode, method: method, declaredLength: declared)
        return state.withLock { state in
            let host = state.transfers[task.taskIdentifier]?.origin?.host()
            if let refusal = plan.refusal(host: host) { return refusal }
            if case .decode = plan {
                state.transfers[task.taskIdentifier]?.decodedLimit = plan.decodedLimit(declaredLength: declared) ?? .max
            }
            return nil
        }
    }

    /// Stops a transfer NetKit refuses: its caller gets `error` (at once while it waits for the head, otherwise as
    /// the end of the body), no further chunk is handed over, and the task is cancelled.
    private func refuse(_ task: URLSessionTask, with error: TransportError) {
        let waiting = state.withLock { state -> (CheckedContinuation<TransportResponse, any Error>, Transfer)? in
            guard var transfer = state.transfers[task.taskIdentifier], transfer.stopped == nil else { return nil }
            transfer.stopped = error
            let waiter = transfer.head
            transfer.head = nil
            state.transfers[task.taskIdentifier] = transfer
            return waiter.map { ($0, transfer) }
        }
        if let (waiter, transfer) = waiting { transfer.inOrder { waiter.resume(throwing: error) } }
        // Not synchronously: on Linux this callback runs on the work queue that cancel() waits for.
        DispatchQueue.global().async { task.cancel() }
    }

    /// Whether chunks cost memory that NetKit must bound (``TinyChunkBudget``): FoundationNetworking's do; Apple's
    /// URLSession keeps no per-chunk timer.
    private static var countsTinyChunks: Bool {
        #if canImport(FoundationNetworking)
        true
        #else
        false
        #endif
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        let target: (NetworkProgress, Int64?, Transfer)? = state.withLock { state in
            guard let transfer = state.transfers[task.taskIdentifier], let progress = transfer.progress else {
                return nil
            }
            // Streamed bodies report 0 as expected total on Linux; the body knows its own length.
            return (
                progress, transfer.uploadLength ?? (totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil),
                transfer
            )
        }
        if let (progress, total, transfer) = target {
            transfer.inOrder { progress.reportSent(totalBytesSent, of: total) }
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
        let resend: BodyResend = state.withLock { $0.transfers[id]?.resend ?? .nothingToSend }
        var replacement: (stream: InputStream, reader: SharedUploadReader)?
        if case .stream(let make) = resend { replacement = make() }
        if let replacement {
            state.withLock { $0.transfers[id]?.resentBodies.append(replacement.reader) }
            completionHandler(replacement.stream)
            return
        }
        let reason =
            if case .refuse(let reason) = resend { reason } else { "the request's body could not be read again" }
        state.withLock { state in
            let host = state.transfers[id]?.origin?.host()
            state.transfers[id]?.stopped = TransportError(.connectionReset, host: host, detail: reason)
        }
        completionHandler(nil)
        // Not synchronously: on Linux this callback runs on the work queue that cancel() waits for.
        DispatchQueue.global().async { task.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let id = task.taskIdentifier
        let ended: (Transfer, Data?)? = state.withLock { state in
            guard let transfer = state.transfers.removeValue(forKey: id) else { return nil }
            return (transfer, state.gathered.removeValue(forKey: id))
        }
        guard let (transfer, gathered) = ended else { return }
        transfer.completed?()
        for body in transfer.resentBodies { body.close() }
        // Stopped by NetKit: the cancellation is reported as the reason it was stopped.
        let error = transfer.stopped.map { $0 as any Error } ?? error
        if let waiter = transfer.head, let (head, body, arrival) = transfer.challengedHead {
            // The borrowed delegate declined the challenge (or it failed again): the 401 is the answer, and its head
            // arrived when it was held back.
            if case .streamed(let writer, _) = transfer.delivery { writer.finish() }
            let response = TransportResponse(
                head: HTTPResponseHead(head), body: ResponseBody(data: body), headReceivedAt: arrival)
            transfer.inOrder { waiter.resume(returning: response) }
            return
        }
        let host = transfer.origin?.host()
        let isCoded = transfer.decodedLimit != nil
        switch transfer.delivery {
        case .streamed(let writer, _):
            if let waiter = transfer.head {
                let failure =
                    error.map { Self.transportError($0, afterHead: false, host: host, isCoded: isCoded) }
                    ?? Self.noHead(host: host)
                transfer.inOrder { waiter.resume(throwing: failure) }
            }
            // A body shorter than its Content-Length arrives here as an error (libcurl and Apple's stack both
            // check); counting bytes here would misjudge HEAD responses and decompressed bodies.
            // After the progress reported so far: a consumer that reaches the end finds every byte counted.
            let failure = error.map {
                Self.transportError($0, afterHead: transfer.head == nil, host: host, isCoded: isCoded)
            }
            transfer.inOrder { writer.finish(throwing: failure) }
        case .whole(_, let head, _):
            // Handed out already when the body was cut at its limit (this is the cancellation that followed).
            guard let waiter = transfer.head else { return }
            let outcome: Result<TransportResponse, any Error> =
                if let error {
                    .failure(Self.transportError(error, afterHead: head != nil, host: host, isCoded: isCoded))
                } else if let head {
                    .success(head.response(with: ResponseBody(data: gathered ?? Data())))
                } else {
                    .failure(Self.noHead(host: host))
                }
            transfer.inOrder { waiter.resume(with: outcome) }
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

    /// A URLSession error in NetKit's words, without the failing URL. libcurl reports a connection that closed
    /// mid-body as code -1 ("transfer closed with N bytes remaining"), Apple's stack as `networkConnectionLost`:
    /// NetKit says ``TransportError/Kind/connectionLost`` on both. A body libcurl could not decode (`isCoded`: its
    /// head named a content coding) is a malformed response that is not transient. Errors NetKit made itself pass
    /// as they are.
    static func transportError(_ error: any Error, afterHead: Bool, host: String?, isCoded: Bool = false) -> any Error {
        guard let urlError = error as? URLError else { return error }
        var translated = urlError.transportError
        translated.host = host ?? translated.host
        if let failure = LibcurlDecodingFailure(urlError, isCoded: isCoded) {
            translated.kind = .badResponse
            translated.detail = failure.detail
            translated.isPermanent = true
            return translated
        }
        if !afterHead, let failure = LibcurlHeadFailure(urlError) {
            translated.kind = .badResponse
            translated.detail = failure.detail
        }
        if afterHead, urlError.code == .unknown {
            translated.kind = .connectionLost
            translated.detail = "the connection closed before the body was complete"
        }
        return translated
    }

    /// The transfer ended without a head and without an error.
    private static func noHead(host: String?) -> TransportError {
        TransportError(.badResponse, host: host, detail: "the transfer ended without a response")
    }

    private func resumeHead(of task: URLSessionTask, with result: Result<TransportResponse, any Error>) {
        let taken = state.withLock { state -> (CheckedContinuation<TransportResponse, any Error>, Transfer)? in
            guard let transfer = state.transfers[task.taskIdentifier], let waiter = transfer.head else { return nil }
            state.transfers[task.taskIdentifier]?.head = nil
            return (waiter, transfer)
        }
        guard let (waiter, transfer) = taken else { return }
        transfer.inOrder { waiter.resume(with: result) }
    }
}
