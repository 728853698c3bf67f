import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore
import NetMultipart

/// The URLSession transport: an actor that owns a session and its delegate.
///
/// It returns as soon as the response head arrives and streams the body as libcurl (or Apple's stack)
/// delivers it, reports upload progress (download progress for requests without a body), cancels the
/// network task when the calling task is cancelled or the body is dropped, and strips credentials from
/// redirects that leave the origin.
///
/// ```swift
/// let transport = URLSessionTransport()
/// let executor = RequestExecutor(transport: transport)
/// ```
public actor URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let delegate: SessionDelegate

    /// Creates a transport with its own session built from `configuration`.
    public init(configuration: URLSessionConfiguration = .default) {
        self.init(configuration: configuration, challengeHandler: nil)
    }

    /// Creates a transport that keeps what `session` carries: its configuration (timeouts, headers, cookies,
    /// cache, proxies) and its delegate's handling of authentication challenges (certificate pinning, client
    /// certificates, HTTP authentication). The transport owns a session of its own, because it needs its own
    /// delegate to stream bodies and report progress; `session` itself is never used or invalidated.
    public init(borrowing session: URLSession) {
        self.init(configuration: session.configuration, challengeHandler: session.delegate)
    }

    private init(configuration: URLSessionConfiguration, challengeHandler: (any URLSessionDelegate)?) {
        let delegate = SessionDelegate(challengeHandler: challengeHandler)
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        // Lets running transfers end; the session is never used after this, which on Linux would crash.
        session.finishTasksAndInvalidate()
    }

    /// Sends `request`; returns when the response head has arrived.
    /// - Throws: `CancellationError` when the calling task is cancelled, otherwise the `URLError` of the
    ///   transfer.
    ///
    /// `nonisolated`: the session and delegate never change, so a request need not hop onto the actor.
    public nonisolated func send(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        let (task, upload) = try makeTask(for: request)
        let (bodyStream, body) = AsyncThrowingStream.makeStream(of: Data.self, throwing: (any Error).self)
        body.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
            // The transfer is over, whichever way: close the body's open files now. URLSession
            // keeps its stream (and so the file) for an unspecified time after completion.
            upload?.close()
        }
        let delegate = self.delegate
        let reportsDownload: Bool
        if case .empty = request.payload { reportsDownload = true } else { reportsDownload = false }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    delegate.register(task, transfer: SessionDelegate.Transfer(
                        head: continuation,
                        body: body,
                        bodyStream: bodyStream,
                        progress: request.progress,
                        uploadLength: request.payload.knownLength,
                        reportsDownload: reportsDownload,
                        origin: request.url
                    ))
                    task.resume()
                }
            } onCancel: {
                task.cancel()
            }
        } catch {
            // No head, so the transfer is over: the caller must find the body's files closed.
            upload?.close()
            if let urlError = error as? URLError, urlError.code == .cancelled, Task.isCancelled {
                throw CancellationError()
            }
            // libcurl reports an aborted upload generically; the body knows what broke.
            if let uploadError = upload?.error { throw uploadError }
            throw error
        }
    }

    /// The task for `request`, and for streamed bodies the reader to close when the transfer ends.
    private nonisolated func makeTask(
        for request: TransportRequest
    ) throws(NetworkError) -> (URLSessionTask, SharedUploadReader?) {
        var head = request.head
        let source: UploadSource
        switch request.payload {
        case .empty:
            return (session.dataTask(with: head), nil)
        case .data(let data):
            return (session.uploadTask(with: head, from: data), nil)
        case .stream(let upload):
            guard let stream = upload.take() else { throw .uploadStreamConsumed }
            // Through the reader, a declared length is enforced and sent as Content-Length.
            source = UploadSource(stream: stream, length: upload.length)
        case .source(let body):
            source = body
        }
        let stream: UploadReaderInputStream
        do {
            stream = try UploadReaderInputStream(source: source)
        } catch {
            // The only error a new reader can meet: a one-shot stream already taken.
            throw .uploadStreamConsumed
        }
        // Content-Length for a known size (on Linux with the placeholder that stops libcurl from
        // chunking, see StreamedBodyFraming); chunked otherwise.
        StreamedBodyFraming.apply(length: source.length, to: &head)
        head.httpBodyStream = stream
        return (session.dataTask(with: head), stream.reader)
    }
}
