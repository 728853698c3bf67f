import Foundation
import NetCore
import NetKitLock

/// One exchange being recorded: its request as it will be written, when each part went and came, and its response
/// body on its way to the archive. It files its entry once, when the exchange is over: the body read to its end,
/// failed or abandoned, or the transport failed before the head.
final class HARRecorderExchange: Sendable {
    private struct State {
        var request: HARRequest
        var sentAt: ContinuousClock.Instant?
        var headAt: ContinuousClock.Instant?
        var response: HARResponse?
        var body: HARRecorderBody?
        /// The temporary folder of a stream body sent from a file, removed at the end.
        var spool: URL?
        var isOver = false
    }

    let recorder: HARRecorder
    let slot: Int
    let credentialFields: CredentialFields
    private let started = ContinuousClock.now
    private let startedDateTime = HAREntry.timestamp(Date())
    private let state: Lock<State>

    /// Starts recording `request` (its body aside: ``recordBody(of:)``).
    init(recorder: HARRecorder, request: TransportRequest) {
        self.recorder = recorder
        slot = recorder.begin()
        let credentialFields = request.credentialFields
        self.credentialFields = credentialFields
        let redaction = recorder.redaction
        let head = request.head
        let query = head.query
        var url = head.scheme + "://" + head.authority + head.pathWithoutQuery
        if let query { url += "?" + redaction.redactedQuery(query, credentialFields: credentialFields) }
        state = Lock(
            State(
                request: HARRequest(
                    method: head.method.rawValue, url: url,
                    headers: redaction.records(of: head.headerFields, credentialFields: credentialFields),
                    queryString: query.map { redaction.queryRecords($0, credentialFields: credentialFields) } ?? [])
            ))
    }

    /// The transport sent `part`: the last part sent ends the `send` phase.
    func sent(_ part: TransportRequest.SentPart) {
        let now = ContinuousClock.now
        state.withLock { $0.sentAt = now }
    }

    /// Keeps the request's body for the entry, and the temporary folder to remove at the end.
    func setRequestBody(_ postData: HARPostData, size: Int, spool: URL?) {
        state.withLock { state in
            state.request.postData = postData
            state.request.bodySize = size
            state.spool = spool
        }
    }

    /// The transport failed before the head: the entry gets status 0 and the reason, as browsers record it.
    func failed(_ error: any Error) {
        let comment = "no response: " + LogRedaction.describe(error)
        finish { _ in (HARResponse(status: 0, comment: comment), nil) }
    }

    /// The head arrived: records it and returns where the body goes.
    func headArrived(_ response: TransportResponse) -> HARRecorderBody {
        let redaction = recorder.redaction
        let head = response.head
        let contentType = head.value(forHeader: "Content-Type")
        let body = HARRecorderBody(
            contentType: contentType, redaction: redaction, limit: recorder.inlineBodyLimit,
            file: recorder.bodyFile(slot: slot, part: "response"))
        let record = HARResponse(
            status: head.statusCode,
            statusText: head.reasonPhrase.isEmpty
                ? HARRecorderReasonPhrase.text(for: head.statusCode) : head.reasonPhrase,
            headers: redaction.records(of: head.headerFields, credentialFields: credentialFields),
            content: HARContent(mimeType: contentType ?? ""),
            redirectURL: head.value(forHeader: "Location").map {
                redaction.redactedURL($0, credentialFields: credentialFields)
            } ?? "")
        state.withLock { state in
            state.headAt = response.headReceivedAt
            state.response = record
            state.body = body
        }
        return body
    }

    /// Milliseconds from the head to now, the time of a chunk read now.
    func timeSinceHead() -> Double {
        let headAt = state.withLock { $0.headAt } ?? started
        return Self.milliseconds(ContinuousClock.now - headAt)
    }

    /// The response body ended: cleanly (`error` `nil`), with `error`, or abandoned by the caller.
    func bodyEnded(error: (any Error)?, abandoned: Bool = false) {
        finish { state in
            guard var response = state.response, let body = state.body else {
                return (HARResponse(status: 0, comment: "no response head was recorded"), nil)
            }
            let outcome = body.finish()
            if let error {
                response.comment = "body ended early: \(LogRedaction.describe(error)) after \(outcome.size) bytes"
            } else if abandoned {
                response.comment = "body abandoned by the caller after \(outcome.size) bytes"
            }
            response.content.size = outcome.size
            response.content.text = outcome.text
            response.content.encoding = outcome.encoding
            response.content.file = outcome.file
            response.content.chunks = outcome.chunks
            response.content.comment = outcome.comment
            let isEncoded = response.headers.contains { $0.name.lowercased() == "content-encoding" }
            response.bodySize = isEncoded ? -1 : outcome.size
            return (response, outcome.failure)
        }
    }

    /// Files the entry once: `build` makes the response (and names a file that could not be written) under the lock.
    private func finish(_ build: (inout State) -> (HARResponse, HARRecordingError?)) {
        let end = ContinuousClock.now
        let finished: (HAREntry, HARRecordingError?, URL?)? = state.withLock { state in
            guard !state.isOver else { return nil }
            state.isOver = true
            let (response, failure) = build(&state)
            let headAt = state.headAt
            // A transport that cannot see its own writes tells the head sent when the answer comes (URLSession, a
            // request without a body): then how long sending took is unknown, and the time counts as waiting.
            let sentAt = state.sentAt.flatMap { sentAt in sentAt < (headAt ?? end) ? sentAt : nil } ?? started
            let timings = HARTimings(
                send: Self.milliseconds(sentAt - started),
                wait: Self.milliseconds((headAt ?? end) - sentAt),
                receive: headAt.map { Self.milliseconds(end - $0) } ?? 0)
            let entry = HAREntry(
                startedDateTime: startedDateTime, time: timings.total, request: state.request, response: response,
                timings: timings)
            return (entry, failure, state.spool)
        }
        guard let finished else { return }
        let (entry, failure, spool) = finished
        if let spool { try? FileManager.default.removeItem(at: spool) }
        if let failure { recorder.note(failure) }
        recorder.complete(slot, with: entry)
    }

    /// `duration` in milliseconds, never negative.
    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return max(0, Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }
}
