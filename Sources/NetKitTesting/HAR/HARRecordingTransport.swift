import Foundation
import NetCore

/// A transport that wraps any other and writes every exchange it carries to a HAR 1.2 file: requests, responses,
/// timings, and how each response body streamed, chunk by chunk. Credentials are redacted before anything is
/// written (``HARRedaction``), so the file can be committed as a test fixture.
///
/// ```swift
/// let fixture = fixturesURL.appendingPathComponent("login.har")
/// let recording = HARRecordingTransport(wrapping: URLSessionTransport(), to: fixture)
/// let manager = NetworkManager(baseURL: apiURL, transport: recording)
/// _ = try await manager.send(Login(user: "ann", password: "…"), accessToken: nil)
/// try await recording.flush()   // every exchange finished, the file written
/// ```
///
/// What it records:
/// - one ``HAREntry`` per exchange, in the order the requests started (concurrent ones do not reorder); the file is
///   rewritten atomically whenever an exchange finishes, and by ``flush()``; its folder is created if missing;
/// - the request as the wrapped transport receives it (fields that transport adds itself, such as `Host` or
///   `Content-Length`, are not seen), its body in `postData`;
/// - the response as the caller reads it: each chunk's size and time in milliseconds after the head
///   (`content._chunks`), the bytes written as they come. A body no larger than `inlineBodyLimit` (after
///   redaction) is inlined as `content.text` (base64 when it is not UTF-8); a larger one, request or response, is
///   kept in `<archive name without .har>.bodies/<n>-response.bin` (`-request.bin`) beside the archive, named
///   relative to the archive's folder in `_file`. A body never takes more than the limit in memory;
/// - a body that ends with an error, or that the caller abandons, is recorded as far as it came, the reason in
///   `response.comment`; a transport error before the head is recorded as status 0 with the reason in
///   `response.comment`, as browsers record it, and rethrown;
/// - timings: `send` from the start to the last part the transport reports sent (`TransportRequest.onSent`, still
///   told to the request's own observer), `wait` to the head, `receive` from the head to the body's end;
///   `blocked`, `dns`, `connect` and `ssl` are -1 (a transport does not report them).
///
/// Request bodies: a body in memory is read where it is, a body that can be read again (a file) through a reader of
/// its own; a single-use stream is copied to a temporary file (readable by its owner only, removed when the exchange
/// is over) and the request goes out with that file as its body (`UploadSource(fileURL:)`, so with a
/// `Content-Length`).
///
/// Redaction applies to bodies of any size, inline or in a file, as they stream: form bodies, and every other body
/// read as JSON whatever its `Content-Type` says, kept as sent from where it stops being JSON (see ``HARRedaction``); `content.size`, `bodySize` and `_chunks` tell the bytes that came, so a redacted body's text
/// or file may be shorter or longer than they say.
///
/// A file that cannot be written does not fail the exchange: the entry says what was not kept, and ``flush()``
/// throws a ``HARRecordingError`` naming the file.
public final class HARRecordingTransport: HTTPTransport {
    private let transport: any HTTPTransport
    private let recorder: HARRecorder

    /// Records every exchange of `transport` to the HAR file at `fileURL`.
    /// - Parameters:
    ///   - transport: The transport that sends the requests.
    ///   - fileURL: The archive; replaced as exchanges finish, with the body files an earlier recording left beside
    ///     it removed at the first request.
    ///   - redaction: What is replaced before anything is written.
    ///   - inlineBodyLimit: The largest body, in bytes, kept inside the archive; larger ones get files of their own.
    public init(
        wrapping transport: any HTTPTransport, to fileURL: URL, redaction: HARRedaction = .standard,
        inlineBodyLimit: Int = 64 * 1024
    ) {
        self.transport = transport
        recorder = HARRecorder(fileURL: fileURL, redaction: redaction, inlineBodyLimit: inlineBodyLimit)
    }

    /// The archive's file.
    public var fileURL: URL { recorder.fileURL }

    /// The exchanges finished so far, redacted, in the order they started (those still running are not in it).
    public var archive: HARArchive { recorder.archive }

    /// What the wrapped transport refuses: recording changes nothing about the connection.
    public func unsupportedSetting(in connection: ConnectionSettings, for head: HTTPRequestHead)
        -> UnsupportedConnectionSettingError?
    {
        transport.unsupportedSetting(in: connection, for: head)
    }

    /// Sends `request` through the wrapped transport and records the exchange; the response body is recorded as
    /// the caller reads it.
    /// - Throws: what the wrapped transport throws (recorded first); a stream body's `UploadSourceError`, or a
    ///   ``HARRecordingError`` when its temporary copy cannot be written, before anything is sent.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let exchange = HARRecorderExchange(recorder: recorder, request: request)
        var request = request
        let response: TransportResponse
        do {
            try HARRecorderRequestBody.record(&request, for: exchange)
            let observer = request.onSent
            request.onSent = { part in
                exchange.sent(part)
                observer?(part)
            }
            response = try await transport.send(request)
        } catch {
            exchange.failed(error)
            throw error
        }
        let body = exchange.headArrived(response)
        var recorded = response
        if let data = response.body.bufferedData {
            // A body handed over whole (`wholeBody`) stays whole, for callers that take it as it is.
            if !data.isEmpty { body.append(data, at: exchange.timeSinceHead()) }
            exchange.bodyEnded(error: nil)
            return recorded
        }
        recorded.body = ResponseBody(HARRecorderTee(base: response.body, exchange: exchange, body: body)) {
            exchange.bodyEnded(error: nil, abandoned: true)
        }
        return recorded
    }

    /// Waits until every exchange started so far is over (its body read to its end, failed, or abandoned: a body
    /// the caller keeps unread keeps the wait going), then writes the archive.
    /// - Throws: a ``HARRecordingError`` for the archive, or for the first body file that could not be written since
    ///   the last flush; `CancellationError` when the calling task is cancelled while waiting.
    public func flush() async throws {
        try await recorder.flush()
    }
}
