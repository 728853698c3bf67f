import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

/// The URLSession transport: an actor that owns a session and its delegate.
///
/// It returns as soon as the response head arrives and streams the body as libcurl (or Apple's stack)
/// delivers it, reports upload progress (download progress for requests without a body), cancels the
/// network task when the calling task is cancelled or the body is dropped, and hands every redirect back for the
/// engine to decide (`RedirectPolicy`). A body the caller collects whole (`TransportRequest.wholeBody`, set by
/// `send`) is gathered by the delegate and handed out complete, within its limit, when the transfer ends.
///
/// ```swift
/// let transport = URLSessionTransport()
/// let executor = RequestExecutor(transport: transport)
/// ```
public actor URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let delegate: SessionDelegate
    /// The type of a borrowed delegate that may pin certificates where the platform never asks it to (Linux): every
    /// request is then refused with ``UnsupportedServerTrust``.
    private nonisolated let untrustedDelegateType: String?
    /// The configuration's `httpAdditionalHeaders`, which the transport adds itself (see
    /// `addingConfigurationFields(_:for:)`): its session would add them to every request, a redirect to another
    /// origin included.
    private nonisolated let configurationFields: HTTPHeaderFields
    #if canImport(FoundationNetworking)
    /// Where the configuration keeps cookies, when it sends them (see `addingStoredCookies(from:for:)`).
    private nonisolated let cookieStorage: HTTPCookieStorage?
    /// Where the configuration keeps the cookies responses set, when it accepts any (see `keepCookies(of:for:)`).
    private nonisolated let responseCookieStorage: HTTPCookieStorage?
    #endif
    /// The most unread body bytes held in memory for a consumer that falls behind (16 MiB by default).
    ///
    /// URLSession on Linux cannot pause a transfer (libcurl gives no backpressure, and `suspend()`/`resume()`
    /// restarts the request from the first byte), so a slow consumer would let a large body pile up in memory.
    /// Past this limit what arrives waits in a temporary file instead (``spillLimit``), which the consumer reads
    /// back in order once it catches up: memory stays bounded and a slow consumer never fails a healthy stream. A
    /// consumer that keeps up never comes near it.
    public nonisolated let bufferLimit: Int

    /// The most unread body bytes held in a temporary file beyond ``bufferLimit``; 0 keeps none, so a body fails
    /// with `StreamingError.bufferLimitExceeded` past ``bufferLimit``, as it does past both limits.
    ///
    /// By default 4 GiB (``defaultSpillLimit``) when ``spillDirectory`` is on disk, and when it lives in memory
    /// (tmpfs or ramfs, as `/tmp` is in many containers) the smaller of 256 MiB and a quarter of its free space: a
    /// spill there costs RAM, the very thing it exists to spare. The file has no name (it is unlinked as soon as it
    /// is made), is closed on `exec`, is written on a queue of the body's own (never on URLSession's work queue,
    /// which every session of a Linux process shares), and is emptied once everything in it has been read back.
    public nonisolated let spillLimit: Int

    /// Where the temporary files of ``spillLimit`` are made: the system's temporary directory (`TMPDIR`) unless
    /// the transport was given another. On a system whose temporary directory is in memory (tmpfs), pass a
    /// directory on disk for spills larger than the memory-backed default.
    public nonisolated let spillDirectory: URL

    /// Called before each write to a spill file with its offset and size (tests hold the writer back with it).
    private nonisolated let beforeSpillWrite: (@Sendable (_ offset: Int64, _ count: Int) -> Void)?

    /// 16 MiB: the default of ``bufferLimit``.
    public static let defaultBufferLimit = 16 << 20

    /// 4 GiB: the default of ``spillLimit`` when ``spillDirectory`` is on disk.
    public static let defaultSpillLimit = 4 << 30

    /// 256 MiB: the most ``spillLimit`` is by default when ``spillDirectory`` lives in memory.
    package static let memoryBackedSpillCap = 256 << 20

    /// The default ``spillLimit`` for temporary files made in `directory`, measured when the transport is made.
    ///
    /// On disk, ``defaultSpillLimit``. In memory (tmpfs or ramfs, statfs `f_type` `TMPFS_MAGIC` or `RAMFS_MAGIC`)
    /// every spilled byte is a byte of RAM or swap, so the default is the smaller of ``memoryBackedSpillCap`` (16
    /// times the default ``bufferLimit``: enough for a consumer that pauses briefly) and a quarter of the file
    /// system's free space (three quarters stay for the other programs that share it; tmpfs is half the RAM by
    /// default, so a quarter of it is at most an eighth of the machine's memory).
    package static func defaultSpillLimit(in directory: URL) -> Int {
        guard SpillFile.isMemoryBacked(directory) else { return defaultSpillLimit }
        // Unknown free space (the directory cannot be asked): the cap, and the spill fails loudly if it cannot write.
        return min(memoryBackedSpillCap, (SpillFile.availableBytes(in: directory) ?? .max) / 4)
    }

    /// Creates a transport with its own session built from `configuration`.
    ///
    /// The configuration's `httpAdditionalHeaders` go with every request that has no field of their name, as
    /// URLSession sends them, except that a credential among them (a field `TransportRequest.credentialFields`
    /// names: `Authorization`, a secret-looking name) goes only where the engine allows it
    /// (`TransportRequest.allowsTransportCredentials`): never to another origin a redirect leads to.
    ///
    /// On Linux the session never consults the configuration's `URLCache` (FoundationNetworking stores no HTTP
    /// response there; NetKit's `ResponseCache` is the cache), and the transport itself keeps the cookies responses
    /// set in its `httpCookieStorage` when it accepts cookies.
    public init(
        configuration: URLSessionConfiguration = .default, bufferLimit: Int = URLSessionTransport.defaultBufferLimit
    ) {
        self.init(configuration: configuration, challengeHandler: nil, bufferLimit: bufferLimit)
    }

    /// Creates a transport with its own session built from `configuration`, holding at most `bufferLimit` unread
    /// body bytes in memory and up to `spillLimit` more in a temporary file in `spillDirectory` (the system's
    /// temporary directory when `nil`).
    public init(
        configuration: URLSessionConfiguration = .default,
        bufferLimit: Int = URLSessionTransport.defaultBufferLimit,
        spillLimit: Int,
        spillDirectory: URL? = nil
    ) {
        self.init(
            configuration: configuration, challengeHandler: nil, bufferLimit: bufferLimit, spillLimit: spillLimit,
            spillDirectory: spillDirectory)
    }

    /// Creates a transport that keeps what `session` carries: its configuration (timeouts, headers, cookies,
    /// cache, proxies) and its delegate's handling of the authentication challenges the platform raises. The
    /// transport owns a session of its own, because it needs its own delegate to stream bodies and report progress;
    /// `session` itself is never used or invalidated.
    ///
    /// On Apple platforms the delegate gets every challenge: server trust (certificate pinning), client
    /// certificates, HTTP authentication. On Linux, FoundationNetworking raises HTTP authentication challenges only,
    /// never server-trust ones, so a delegate that pins certificates would be silently skipped: there, unless the
    /// delegate adopts ``SystemTrustDelegate`` (saying it does not rely on server trust), every request fails with
    /// ``UnsupportedServerTrust`` before anything is sent. To pin certificates on Linux, use `AsyncHTTPClientTransport`
    /// (module NetAsyncHTTPClient, package trait `AsyncHTTPClient`) with a NIOSSL `TLSConfiguration`.
    public init(borrowing session: URLSession, bufferLimit: Int = URLSessionTransport.defaultBufferLimit) {
        self.init(configuration: session.configuration, challengeHandler: session.delegate, bufferLimit: bufferLimit)
    }

    /// A transport whose spill files' writer runs `beforeSpillWrite` before each write: for tests.
    package init(
        bufferLimit: Int, spillLimit: Int, spillDirectory: URL,
        beforeSpillWrite: @escaping @Sendable (_ offset: Int64, _ count: Int) -> Void
    ) {
        self.init(
            configuration: .default, challengeHandler: nil, bufferLimit: bufferLimit, spillLimit: spillLimit,
            spillDirectory: spillDirectory, beforeSpillWrite: beforeSpillWrite)
    }

    private init(
        configuration: URLSessionConfiguration,
        challengeHandler: (any URLSessionDelegate)?,
        bufferLimit: Int,
        spillLimit: Int? = nil,
        spillDirectory: URL? = nil,
        beforeSpillWrite: (@Sendable (_ offset: Int64, _ count: Int) -> Void)? = nil
    ) {
        self.beforeSpillWrite = beforeSpillWrite
        self.untrustedDelegateType = Self.delegateRelyingOnServerTrust(challengeHandler)
        self.bufferLimit = max(1, bufferLimit)
        let spillDirectory = spillDirectory ?? FileManager.default.temporaryDirectory
        self.spillLimit = max(0, spillLimit ?? Self.defaultSpillLimit(in: spillDirectory))
        self.spillDirectory = spillDirectory
        configurationFields = Self.fields(of: configuration.httpAdditionalHeaders)
        let configuration = configuration.copy() as! URLSessionConfiguration
        configuration.httpAdditionalHeaders = nil
        #if canImport(FoundationNetworking)
        // FoundationNetworking would put its stored cookies in place of a request's own Cookie header (the cookie
        // jar's too): the transport adds them itself, only to requests without one (`addingStoredCookies`).
        cookieStorage = configuration.httpShouldSetCookies ? configuration.httpCookieStorage : nil
        responseCookieStorage = configuration.httpCookieAcceptPolicy == .never ? nil : configuration.httpCookieStorage
        configuration.httpShouldSetCookies = false
        // A session that accepts cookies has every header line of every response read for them (each trimmed
        // through Foundation's CharacterSet), on the work queue all sessions of a Linux process share: 4.6 % of the
        // process's CPU time for small GETs. The transport keeps a response's cookies itself (`keepCookies`).
        configuration.httpCookieAcceptPolicy = .never
        // URLCache never stores an HTTP response on Linux (Docs/Linux.md), yet every task would ask it, on a queue
        // of its own, before its transfer starts. NetKit's `ResponseCache` is the cache, on every transport.
        configuration.urlCache = nil
        #endif
        let delegate = SessionDelegate(challengeHandler: challengeHandler)
        self.delegate = delegate
        self.session = URLSession(
            configuration: configuration, delegate: delegate, delegateQueue: Self.makeDelegateQueue())
    }

    /// `headers` (a configuration's `httpAdditionalHeaders`) as fields, as URLSession sends them: a name and a value
    /// that are text (a value that is not, by its description), in the order of their names.
    private static func fields(of headers: [AnyHashable: Any]?) -> HTTPHeaderFields {
        let pairs = (headers ?? [:]).compactMap { key, value -> HTTPHeaderField? in
            guard let name = key as? String else { return nil }
            return HTTPHeaderField(uncheckedName: name, value: value as? String ?? "\(value)")
        }
        return HTTPHeaderFields(pairs.sorted { $0.name < $1.name })
    }

    /// The type of `delegate` when it may pin certificates where the platform never raises server-trust challenges
    /// (Linux) and it has not said otherwise (``SystemTrustDelegate``); `nil` elsewhere.
    private static func delegateRelyingOnServerTrust(_ delegate: (any URLSessionDelegate)?) -> String? {
        #if canImport(FoundationNetworking)
        guard let delegate, !(delegate is any SystemTrustDelegate) else { return nil }
        return String(reflecting: type(of: delegate))
        #else
        return nil
        #endif
    }

    /// On Linux, callbacks run inline on URLSession's work queue (see ``InlineDelegateQueue``: a thread hand-off per
    /// callback cost 30% of the throughput with many requests in flight); elsewhere the session's own serial queue.
    private static func makeDelegateQueue() -> OperationQueue? {
        #if canImport(FoundationNetworking)
        InlineDelegateQueue()
        #else
        nil
        #endif
    }

    deinit {
        // Lets running transfers end; the session is never used after this, which on Linux would crash.
        session.finishTasksAndInvalidate()
    }

    /// Refuses, before anything is sent, each connection setting URLSession cannot apply (see
    /// Docs/Security.md): on Linux every TLS setting, a proxy of your own, HTTP/1.1 only, and a direct connection
    /// while libcurl would read a proxy from the environment.
    public nonisolated func unsupportedSetting(in connection: ConnectionSettings, for head: HTTPRequestHead)
        -> UnsupportedConnectionSettingError?
    {
        URLSessionConnectionSupport.unsupportedSetting(
            in: connection, for: head, environment: ProcessInfo.processInfo.environment)
    }

    /// Sends `request`; returns when the response head has arrived, with the body streaming in.
    ///
    /// A request whose `TransportRequest.wholeBody` is set (`send` sets it) returns when the transfer has ended
    /// instead, with the body complete in memory: at most the limit for its status + 1 bytes are kept (then the
    /// transfer is cancelled and the response handed out as it stands, so the caller sees a body too long for
    /// it), and a body cut short is handed out with the head too, failing where it broke when it is read. Progress, cancellation, redirects and authentication challenges
    /// behave the same on both roads.
    /// - Throws: ``UnsupportedServerTrust`` on Linux for a borrowed delegate that may pin certificates (see
    ///   ``init(borrowing:bufferLimit:)``); `CancellationError` when the calling task is cancelled, otherwise the
    ///   `TransportError` of the transfer (`TransportError.Kind.connectionLost` for a connection that closed
    ///   mid-body), with URLSession's error beneath.
    ///
    /// `nonisolated`: the session and delegate never change, so a request need not hop onto the actor.
    public nonisolated func send(_ request: TransportRequest) async throws -> TransportResponse {
        if let untrustedDelegateType {
            throw UnsupportedServerTrust(delegateType: untrustedDelegateType, host: request.head.host)
        }
        // Asked again here for a caller that bypasses the engine: nothing leaves with less than it asked for.
        if let connection = request.connection, let refusal = unsupportedSetting(in: connection, for: request.head) {
            throw refusal
        }
        try Task.checkCancellation()
        let (task, upload, resend) = try makeTask(for: request)
        let road: SessionDelegate.Machine.Road
        if let limits = request.wholeBody {
            road = .whole(limits)
        } else {
            // The consumer stopped early or fell too far behind: stop the transfer (and close the body's files).
            // Not from inside the delegate's callback, where the buffer overflows: on Linux a task cancelled there
            // completes with -999 but leaves its connection open, the server still sending (measured, Swift 6.3.1),
            // and the callback runs on the work queue that cancel() waits for.
            let spill = ChunkQueue.Spill(
                limit: spillLimit, directory: spillDirectory, beforeWrite: beforeSpillWrite)
            let (body, writer) = ResponseBody.makeBuffered(bufferLimit: bufferLimit, spill: spill) {
                DispatchQueue.global().async { task.cancel() }
                upload?.close()
            }
            road = .streamed(writer, unread: body)
        }
        let delegate = self.delegate
        let closeUpload: (@Sendable () -> Void)? = if let upload { { upload.close() } } else { nil }
        do {
            let response = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    delegate.register(
                        task,
                        transfer: SessionDelegate.Transfer(
                            head: continuation,
                            road: road,
                            progress: request.progress,
                            onSent: request.onSent,
                            hasBody: request.body != nil,
                            uploadLength: request.bodyLength,
                            origin: task.originalRequest?.url,
                            method: task.originalRequest?.httpMethod.flatMap { HTTPRequestMethod(rawValue: $0) },
                            completed: closeUpload,
                            resend: resend
                        ))
                    task.resume()
                }
            } onCancel: {
                // Not synchronously: the canceller may be running on URLSession's work queue (an observer of
                // progress is told from there on Linux), which cancel() waits for.
                DispatchQueue.global().async { task.cancel() }
            }
            #if canImport(FoundationNetworking)
            responseCookieStorage?.keepCookies(of: response.head, for: request.head)
            #endif
            return response
        } catch {
            // No head, so the transfer is over: the caller must find the body's files closed.
            upload?.close()
            if Task.isCancelled,
                (error as? URLError)?.code == .cancelled || (error as? TransportError)?.kind == .cancelled
            {
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
    ) throws(NetworkError) -> (URLSessionTask, SharedUploadReader?, SessionDelegate.BodyResend) {
        var head = try URLRequest(head: request).addingConfigurationFields(configurationFields, for: request)
        #if canImport(FoundationNetworking)
        head = head.addingStoredCookies(from: cookieStorage, for: request)
        #endif
        guard let source = request.body else { return (session.dataTask(with: head), nil, .nothingToSend) }
        let resend = SessionDelegate.BodyResend(for: request)
        if let data = source.inMemoryData { return (session.uploadTask(with: head, from: data), nil, resend) }
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
        return (session.dataTask(with: head), stream.reader, resend)
    }
}
