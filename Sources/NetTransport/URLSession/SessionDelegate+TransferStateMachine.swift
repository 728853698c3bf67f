import Foundation
import NetCore

extension SessionDelegate {
    /// Every decision of one URLSession transfer as a plain value: no lock, no URLSession, no queue, no clock of its
    /// own. ``SessionDelegate`` feeds it what URLSession reports (a head, a chunk, a request for the body again, sent
    /// bytes, the end) under its lock and carries out the actions it returns outside it: resuming the waiter,
    /// handing a chunk over, finishing the body, cancelling the task.
    ///
    /// `Waiter` is what waits for the head (a continuation in the delegate, a plain value in tests); `Writer` is
    /// where a streamed body's chunks go. Each action hands out the waiter at most once: the machine forgets it as
    /// soon as an action carries it.
    ///
    /// The quirks it keeps to, each measured on Linux (Swift 6.3.1, libcurl 7.88.1): a 401 reported before its
    /// authentication challenge is held back (``Quirks/reports401BeforeChallenge``), a flood of tiny chunks is stopped
    /// at a budget (``TinyChunkBudget``), content codings libcurl decodes are bounded, a body libcurl asks for again
    /// is given again or refused (``BodyResend``), and a stop NetKit makes is reported as its reason, not as the
    /// cancellation that follows it.
    struct TransferStateMachine<Waiter: Sendable, Writer: Sendable>: Sendable {
        /// What the platform's URLSession does that the transfer must answer for.
        struct Quirks: Equatable, Sendable {
            /// FoundationNetworking reports a 401 that carries a Basic or Digest challenge, then raises the
            /// authentication challenge and may send the request again; Apple's stack asks before it reports.
            var reports401BeforeChallenge: Bool
            /// FoundationNetworking holds bookkeeping for every chunk until its work queue catches up
            /// (``TinyChunkBudget``); Apple's URLSession keeps no per-chunk timer.
            var holdsChunkBookkeeping: Bool

            /// The quirks of the URLSession this build runs on.
            static var current: Quirks {
                #if canImport(FoundationNetworking)
                Quirks(reports401BeforeChallenge: true, holdsChunkBookkeeping: true)
                #else
                Quirks(reports401BeforeChallenge: false, holdsChunkBookkeeping: false)
                #endif
            }
        }

        /// What the transfer knows from its request.
        struct Configuration: Sendable {
            /// Whether someone observes the transfer's progress.
            var reportsProgress = false
            /// Whether the engine is told what was sent (``NetCore/TransportRequest/onSent``).
            var tellsSent = false
            /// Whether the request has a body.
            var hasBody = false
            /// The request body's own length: streamed bodies report 0 as the total to send on Linux.
            var uploadLength: Int64?
            /// The server's host, named in errors.
            var host: String?
            /// The request's method (decides whether a head declares a body, and which codings apply).
            var method: HTTPRequestMethod?
            var resend: BodyResend = .nothingToSend
            var tinyChunks: TinyChunkBudget.Limits = .standard
            var quirks: Quirks = .current
        }

        /// The road the body takes, as the transport chose it.
        enum Road: Sendable {
            /// As it arrives: chunks go to the writer; `unread` is handed out with the head.
            case streamed(Writer, unread: ResponseBody)
            /// Gathered here and handed out complete with the head when the transfer ends, within `limits`.
            case whole(WholeBodyLimits)
        }

        /// What the head callback reports, read off URLSession's response before the machine sees it.
        struct ReceivedHead: Sendable {
            var head: HTTPResponseHead
            /// The Content-Length URLSession expects, when it knows one.
            var expectedLength: Int64?
            var contentEncoding: String?
            /// The Content-Length field as the server wrote it.
            var declaredLength: Int64?
            var wwwAuthenticate: String?
            /// When it arrived (stored as a value of known size: see `MonotonicInstant`).
            var at: MonotonicInstant

            init(
                head: HTTPResponseHead, expectedLength: Int64?, contentEncoding: String?, declaredLength: Int64?,
                wwwAuthenticate: String?, at: ContinuousClock.Instant
            ) {
                self.head = head
                self.expectedLength = expectedLength
                self.contentEncoding = contentEncoding
                self.declaredLength = declaredLength
                self.wwwAuthenticate = wwwAuthenticate
                self.at = MonotonicInstant(at)
            }
        }

        /// How far the telling of what was sent has gone.
        enum SentParts: Sendable {
            case nothing
            case head
            case body
        }

        /// What to tell ``NetCore/TransportRequest/onSent`` after an event: the head, then the body's bytes.
        struct SentNews: Equatable, Sendable {
            var head = false
            var body: Int64?

            /// Tells `onSent` the news, in order.
            func tell(_ onSent: @Sendable (TransportRequest.SentPart) -> Void) {
                if head { onSent(.head) }
                if let body { onSent(.body(bytes: body)) }
            }
        }

        /// Bytes received so far, and how many are expected.
        struct ReceivedProgress: Equatable, Sendable {
            var received: Int64
            var expected: Int64?
        }

        /// What a head leads to.
        enum HeadAction {
            case none
            /// Resume `Waiter` with the response.
            case handOut(Waiter, TransportResponse)
            /// Resume the waiter (if any) with the response, then cancel the task: the body cannot fit.
            case handOutAndCancel(Waiter?, TransportResponse)
            /// Resume the waiter (if any) with the error, then cancel the task.
            case failAndCancel(Waiter?, any Error)
        }

        /// What a chunk leads to (besides the progress reported for it).
        enum ChunkAction {
            /// Nothing is kept (a stopped transfer, a body handed out already, a chunk before any head).
            case drop
            /// Hand the chunk to `Writer`.
            case stream(Writer)
            /// Kept in the gathered body.
            case gathered
            /// The gathered body grew past its limit: resume the waiter (if any) with the response as it stands, then
            /// cancel the task.
            case cut(Waiter?, TransportResponse)
            /// NetKit stops the transfer: resume the waiter (if any) and finish the writer (if any) with the error,
            /// then cancel the task.
            case stop(TransportError, Waiter?, Writer?)
        }

        /// What the end of the task leads to: the waiter resumed, then the streamed body finished.
        struct Completion {
            var resume: (Waiter, Result<TransportResponse, any Error>)?
            var finish: (Writer, (any Error)?)?
        }

        /// What libcurl's request for the body again leads to.
        enum ResendAction {
            /// Make a fresh stream of the body; report ``bodyCouldNotBeReadAgain()`` when none comes.
            case makeStream(@Sendable () -> (stream: InputStream, reader: SharedUploadReader)?)
            /// Answer with no stream and cancel the task: the transfer has been stopped.
            case refuse
        }

        /// A response head as it arrived, in NetKit's words.
        struct ArrivedHead: Sendable {
            let head: HTTPResponseHead
            let at: MonotonicInstant

            func response(with body: ResponseBody) -> TransportResponse {
                TransportResponse(head: head, body: body, headArrival: at)
            }
        }

        /// How the body reaches the caller now.
        private enum Delivery: Sendable {
            /// `unread` until it has been handed out with a head.
            case streamed(Writer, unread: ResponseBody?)
            /// `head` once a final head has arrived; `delivered` once the response has been handed out early (the head
            /// refused, or the body cut at its limit).
            case whole(WholeBodyLimits, head: ArrivedHead?, delivered: Bool)
        }

        /// The most bytes of a held-back 401 body kept.
        static var heldBackBodyLimit: Int { 64 * 1024 }

        let configuration: Configuration
        private var waiter: Waiter?
        private var delivery: Delivery
        /// The whole body gathered so far: a stored property, not an enum payload, so appending never copies it.
        private var gathered = Data()
        /// A 401 held back (with its body) until the retried request's head arrives, or delivered when no retry
        /// comes.
        private(set) var heldBack: (head: HTTPResponseHead, body: Data, at: MonotonicInstant)?
        private(set) var received: Int64 = 0
        private var expected: Int64?
        /// Why NetKit stopped the transfer itself: the error its cancellation is reported as.
        private(set) var stopped: TransportError?
        /// Set when the head names content codings libcurl decodes: the most decoded bytes the body may bring
        /// (`Int64.max` when no length is declared).
        private(set) var decodedLimit: Int64?
        private var tinyChunks: TinyChunkBudget
        /// What has been told sent of the request.
        private var told = SentParts.nothing
        /// The body bytes URLSession has reported sent.
        private var bodyBytesSent: Int64 = 0

        init(waiter: Waiter, road: Road, configuration: Configuration) {
            self.waiter = waiter
            self.configuration = configuration
            self.tinyChunks = TinyChunkBudget(limits: configuration.tinyChunks)
            switch road {
            case .streamed(let writer, let unread): delivery = .streamed(writer, unread: unread)
            case .whole(let limits): delivery = .whole(limits, head: nil, delivered: false)
            }
        }

        /// Whether the head's waiter still waits.
        var isWaitingForHead: Bool { waiter != nil }

        // MARK: Head

        /// URLSession reported a response that is not HTTP.
        mutating func receivedNonHTTPHead() -> HeadAction {
            .failAndCancel(waiter.take(), NetworkError.invalidResponse)
        }

        mutating func receivedHead(_ received: ReceivedHead) -> HeadAction {
            // libcurl passes the interim 100 Continue on to the delegate; the real head follows.
            guard received.head.statusCode >= 200 else { return .none }
            if let refusal = applyCodings(of: received) { return stop(refusing: refusal) }
            if received.head.statusCode == 401, awaitsChallenge(received.wwwAuthenticate) {
                heldBack = (received.head, Data(), received.at)
                return .none
            }
            heldBack = nil
            expected = received.expectedLength
            let arrived = ArrivedHead(head: received.head, at: received.at)
            switch delivery {
            case .streamed(let writer, let unread?):
                delivery = .streamed(writer, unread: nil)
                guard let waiter = waiter.take() else { return .none }
                return .handOut(waiter, arrived.response(with: unread))
            case .streamed:
                return .none
            case .whole(let limits, _, let delivered):
                if let method = configuration.method, limits.refusesAtHead(arrived.head, method: method) {
                    // The body cannot fit: hand the head over now (the caller refuses it) and stop the transfer.
                    delivery = .whole(limits, head: arrived, delivered: true)
                    return .handOutAndCancel(waiter.take(), arrived.response(with: .empty))
                }
                delivery = .whole(limits, head: arrived, delivered: delivered)
                // Only what the caller keeps is reserved: a lying Content-Length cannot make the transport allocate.
                let limit = limits.limit(forStatus: arrived.head.statusCode)
                let reserved = min(
                    received.expectedLength ?? -1, Int64(min(limit, ResponseBody.maximumUpfrontReservation)))
                gathered = Data()
                if reserved > 0 { gathered.reserveCapacity(Int(reserved)) }
                return .none
            }
        }

        /// Applies NetKit's content-coding plan (``NetCore/ContentCoding``): the error of a coding it refuses (one
        /// NetKit does not decode, although libcurl may: `br`, `zstd`); for one libcurl decodes, sets
        /// ``decodedLimit``.
        private mutating func applyCodings(of received: ReceivedHead) -> TransportError? {
            guard let field = received.contentEncoding else { return nil }
            let plan = ContentCoding(
                contentEncoding: [field], statusCode: received.head.statusCode, method: configuration.method ?? .get,
                declaredLength: received.declaredLength)
            if let refusal = plan.refusal(host: configuration.host) { return refusal }
            if case .decode = plan { decodedLimit = plan.decodedLimit(declaredLength: received.declaredLength) ?? .max }
            return nil
        }

        /// Stops a transfer NetKit refuses at its head: the waiter gets `error` (unless a stop came first), and the
        /// task is cancelled either way.
        private mutating func stop(refusing error: TransportError) -> HeadAction {
            guard stopped == nil else { return .failAndCancel(nil, error) }
            stopped = error
            return .failAndCancel(waiter.take(), error)
        }

        /// Whether URLSession will raise an authentication challenge for a 401 with this `WWW-Authenticate` (and may
        /// send the request again): on Linux it does so for Basic and Digest challenges, after it has reported the
        /// 401.
        private func awaitsChallenge(_ wwwAuthenticate: String?) -> Bool {
            guard configuration.quirks.reports401BeforeChallenge, let header = wwwAuthenticate else { return false }
            return header.split(separator: ",").contains { challenge in
                let scheme = challenge.drop { $0 == " " }.prefix { $0 != " " }.lowercased()
                return scheme == "basic" || scheme == "digest"
            }
        }

        // MARK: Body

        /// A chunk of the body arrived at `now`.
        mutating func receivedChunk(
            _ data: Data, at now: ContinuousClock.Instant
        ) -> (action: ChunkAction, progress: ReceivedProgress?) {
            if let kept = heldBack?.body.count {
                // In place: a copy of the held-back response would make the append copy its body.
                heldBack?.body.append(data.prefix(Self.heldBackBodyLimit - kept))
                return (.drop, nil)
            }
            // Stopped already: what arrives until the cancellation lands is dropped.
            guard stopped == nil else { return (.drop, nil) }
            if configuration.quirks.holdsChunkBookkeeping, tinyChunks.record(chunkOf: data.count, at: now) == .exceeded
            {
                // The cancellation cannot land before the flood pauses (see TinyChunkBudget).
                var flood = TransportError(.badResponse, host: configuration.host, detail: tinyChunks.explanation)
                // Sent again, the request would meet the same flood, at the same cost.
                flood.isPermanent = true
                return (stop(with: flood), nil)
            }
            received += Int64(data.count)
            if let limit = decodedLimit, received > limit {
                let encoded = limit / Int64(ContentCoding.decompressionRatio)
                return (
                    stop(with: ContentCoding.bomb(host: configuration.host, encoded: encoded, decoded: received)), nil
                )
            }
            let progress =
                configuration.reportsProgress ? ReceivedProgress(received: received, expected: expected) : nil
            switch delivery {
            case .streamed(let writer, _):
                return (.stream(writer), progress)
            case .whole(_, _, true), .whole(_, nil, _):
                return (.drop, progress)
            case .whole(let limits, let head?, false):
                let room = limits.limit(forStatus: head.head.statusCode) + 1 - gathered.count
                gathered.append(data.prefix(max(0, room)))
                if data.count < room { return (.gathered, progress) }
                // Past the limit: the caller keeps no more, so neither does the transfer.
                delivery = .whole(limits, head: head, delivered: true)
                let body = gathered
                gathered = Data()
                return (.cut(waiter.take(), head.response(with: ResponseBody(data: body))), progress)
            }
        }

        /// NetKit stops the transfer: the caller hears `error` now (the cancellation may land late), and NetKit keeps
        /// nothing more of the body meanwhile.
        private mutating func stop(with error: TransportError) -> ChunkAction {
            stopped = error
            gathered = Data()
            var writer: Writer?
            if case .streamed(let streamed, _) = delivery { writer = streamed }
            return .stop(error, waiter.take(), writer)
        }

        // MARK: Upload

        /// URLSession sent body bytes: the progress to report, if anyone observes it.
        func sentBody(total sent: Int64, expectedToSend: Int64) -> (sent: Int64, total: Int64?)? {
            guard configuration.reportsProgress else { return nil }
            // Streamed bodies report 0 as expected total on Linux; the body knows its own length.
            return (sent, configuration.uploadLength ?? (expectedToSend > 0 ? expectedToSend : nil))
        }

        /// URLSession sent body bytes, `sent` in all: what to tell sent now. The first bytes prove the head went out
        /// before them; the body is sent when its known length (the request's own, or URLSession's expected total)
        /// is reached.
        mutating func sentParts(total sent: Int64, expectedToSend: Int64) -> SentNews {
            bodyBytesSent = max(bodyBytesSent, sent)
            guard configuration.tellsSent else { return SentNews() }
            var news = tellHead()
            let length = configuration.uploadLength ?? (expectedToSend > 0 ? expectedToSend : nil)
            if configuration.hasBody, told == .head, let length, bodyBytesSent >= length {
                told = .body
                news.body = bodyBytesSent
            }
            return news
        }

        /// A final response head of `status` arrived: what to tell sent now. URLSession says nothing of a head written
        /// without a body, nor of the end of a body of unknown length; the answer proves them sent.
        mutating func sentParts(atHeadOf status: Int) -> SentNews {
            // An interim 100 Continue comes before the body is sent.
            guard configuration.tellsSent, status >= 200 else { return SentNews() }
            var news = tellHead()
            if configuration.hasBody, told == .head {
                told = .body
                news.body = max(bodyBytesSent, configuration.uploadLength ?? 0)
            }
            return news
        }

        /// The head, unless it was told.
        private mutating func tellHead() -> SentNews {
            guard told == .nothing else { return SentNews() }
            told = .head
            return SentNews(head: true)
        }

        /// libcurl asks for the body again (see ``BodyResend``).
        mutating func bodyRequestedAgain() -> ResendAction {
            switch configuration.resend {
            case .stream(let make):
                return .makeStream(make)
            case .refuse(let reason):
                stopped = TransportError(.connectionReset, host: configuration.host, detail: reason)
                return .refuse
            case .nothingToSend:
                bodyCouldNotBeReadAgain()
                return .refuse
            }
        }

        /// No fresh stream of the body could be made: the transfer stops, and the task is to be cancelled.
        mutating func bodyCouldNotBeReadAgain() {
            stopped = TransportError(
                .connectionReset, host: configuration.host, detail: "the request's body could not be read again")
        }

        // MARK: End

        /// The task completed, with URLSession's `error` (a cancellation NetKit made is reported as its reason).
        mutating func completed(with error: (any Error)?) -> Completion {
            let error = stopped.map { $0 as any Error } ?? error
            var writer: Writer?
            if case .streamed(let streamed, _) = delivery { writer = streamed }
            if let (head, body, at) = heldBack, let waiter = waiter.take() {
                // The borrowed delegate declined the challenge (or it failed again): the 401 is the answer, and its
                // head arrived when it was held back.
                let response = TransportResponse(head: head, body: ResponseBody(data: body), headArrival: at)
                return Completion(resume: (waiter, .success(response)), finish: writer.map { ($0, nil) })
            }
            let host = configuration.host
            let isCoded = decodedLimit != nil
            switch delivery {
            case .streamed(let writer, _):
                let headArrived = waiter == nil
                let resume = waiter.take().map { waiter in
                    let failure =
                        error.map { SessionDelegate.transportError($0, afterHead: false, host: host, isCoded: isCoded) }
                        ?? Self.noHead(host: host)
                    return (waiter, Result<TransportResponse, any Error>.failure(failure))
                }
                // A body shorter than its Content-Length arrives here as an error (libcurl and Apple's stack both
                // check); counting bytes here would misjudge HEAD responses and decoded bodies.
                let failure = error.map {
                    SessionDelegate.transportError($0, afterHead: headArrived, host: host, isCoded: isCoded)
                }
                return Completion(resume: resume, finish: (writer, failure))
            case .whole(_, let head, _):
                // Handed out already when the body was cut at its limit (this is the cancellation that followed).
                guard let waiter = waiter.take() else { return Completion() }
                let outcome: Result<TransportResponse, any Error> =
                    if let error, let head, !Self.isCancellation(error) {
                        // The head came: it is the answer, as on the streamed road, and its body fails where it
                        // broke, so that the engine sees a response whose body was cut (not a request unanswered,
                        // which it may send again).
                        .success(
                            head.response(
                                with: Self.broken(
                                    gathered,
                                    SessionDelegate.transportError(error, afterHead: true, host: host, isCoded: isCoded)
                                )))
                    } else if let error {
                        .failure(
                            SessionDelegate.transportError(error, afterHead: head != nil, host: host, isCoded: isCoded))
                    } else if let head {
                        .success(head.response(with: ResponseBody(data: gathered)))
                    } else {
                        .failure(Self.noHead(host: host))
                    }
                gathered = Data()
                return Completion(resume: (waiter, outcome))
            }
        }

        /// A body of `bytes` that then fails with `error`.
        private static func broken(_ bytes: Data, _ error: any Error) -> ResponseBody {
            ResponseBody(
                AsyncThrowingStream { continuation in
                    if !bytes.isEmpty { continuation.yield(bytes) }
                    continuation.finish(throwing: error)
                })
        }

        /// Whether `error` is a cancellation (the caller's, or NetKit's own stop at a limit), which ends the exchange
        /// rather than its body.
        private static func isCancellation(_ error: any Error) -> Bool {
            (error as? URLError)?.code == .cancelled || (error as? TransportError)?.kind == .cancelled
        }

        /// The transfer ended without a head and without an error.
        private static func noHead(host: String?) -> TransportError {
            TransportError(.badResponse, host: host, detail: "the transfer ended without a response")
        }
    }
}
