import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

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
        let task = try makeTask(for: request)
        let (bodyStream, body) = AsyncThrowingStream.makeStream(of: Data.self, throwing: (any Error).self)
        body.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
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
        } catch let error as URLError where error.code == .cancelled && Task.isCancelled {
            throw CancellationError()
        }
    }

    private nonisolated func makeTask(for request: TransportRequest) throws(NetworkError) -> URLSessionTask {
        var head = request.head
        switch request.payload {
        case .empty:
            return session.dataTask(with: head)
        case .data(let data):
            return session.uploadTask(with: head, from: data)
        case .stream(let upload):
            // libcurl sends a stream chunked; a Content-Length beside it makes servers reject the request.
            head.setValue(nil, forHTTPHeaderField: "Content-Length")
            guard let stream = upload.take() else { throw .uploadStreamConsumed }
            head.httpBodyStream = stream
            return session.dataTask(with: head)
        }
    }
}
