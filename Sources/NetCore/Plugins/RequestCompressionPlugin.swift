#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Compresses request bodies with gzip or deflate and names the coding in `Content-Encoding`, as Alamofire's
/// `DeflateRequestCompressor` does, on every transport.
///
/// ```swift
/// // Every request of an engine (or a NetworkManager's `plugins`)…
/// let executor = RequestExecutor(transport: URLSessionTransport(), plugins: [RequestCompressionPlugin(coding: .gzip)])
/// // …or only the requests of a server known to accept it.
/// struct UploadEvents: Endpoint {
///     var plugins: [any Plugin] { [RequestCompressionPlugin(coding: .deflate, minimumBytes: 4096)] }
///     // path, method, body…
/// }
/// ```
///
/// In `prepare`, once per request, before anything is sent, a request with a body of at least ``minimumBytes`` and
/// no `Content-Encoding` of its own gets its body compressed, `Content-Encoding: gzip` (or `deflate`), and a
/// `Content-Length` that is the compressed body's (the transport sets it from the body; a `Content-Length` the
/// request carried is dropped). A request that names a `Content-Encoding` is left alone, whatever the value: a body
/// is never encoded twice. `Content-Type` is kept: it describes the content before its coding.
///
/// - A body in memory becomes one run of compressed memory: replayable as before.
/// - A body of files or streams is compressed piece by piece, in bounded memory (64 KiB of input and of output at a
///   time, and zlib's state), on a thread of its own, into a temporary file in ``temporaryDirectory`` (mode 0600,
///   created exclusively), which is what is sent: a file body stays replayable, and a stream is read once, here,
///   before the first attempt. The file is removed when the request ends, however it ends. A file that cannot be
///   made fails the request with ``RequestCompressionError/temporaryFileUnavailable(directory:errno:)`` before
///   anything is sent or read.
///
/// The server must accept the coding, and many do not: a server that does not answers 415 Unsupported Media Type,
/// or misreads the body. Add the plugin to the requests of a server known to accept it (a request's `plugins`), or
/// to the manager when every server it talks to does.
///
/// It runs early (``PluginPriority/high`` by default), so that plugins that read or sign the body in `prepare` see
/// it compressed; `willSend` always sees it compressed.
public struct RequestCompressionPlugin: Plugin {
    /// 1 KiB: the default of ``minimumBytes``. Below it a body gains a few hundred bytes at most, and a compressed
    /// body costs the server a decoder.
    public static let defaultMinimumBytes = 1024
    /// 6: zlib's default level, the default of ``level``: most of level 9's gain at a fraction of its time.
    public static let defaultLevel = 6

    /// The coding applied.
    public let coding: RequestBodyCoding
    /// The smallest body compressed, in bytes; a smaller one is sent as it is. A stream of unknown length is
    /// compressed whatever its size: only reading it would tell.
    public let minimumBytes: Int
    /// zlib's compression level: 1 is fastest, 9 smallest, 0 stores without compressing.
    public let level: Int
    /// Where the compressed copy of a body of files or streams is written while the request lasts.
    public let temporaryDirectory: URL
    /// Where the plugin runs among the others.
    public let priority: PluginPriority

    /// The temporary files of the requests in flight, shared by every copy of the plugin.
    private let files = TemporaryBodyFiles()

    /// Creates the plugin.
    /// - Parameters:
    ///   - coding: The coding applied; `gzip` by default (see ``RequestBodyCoding``).
    ///   - minimumBytes: The smallest body compressed (1 KiB by default).
    ///   - level: zlib's compression level, 0 to 9 (6 by default).
    ///   - temporaryDirectory: Where a compressed body of files or streams is written (the system's temporary
    ///     directory by default).
    ///   - priority: Where the plugin runs among the others (``PluginPriority/high`` by default: before the plugins
    ///     that sign or read the body).
    /// - Precondition: `level` is between 0 and 9, and `minimumBytes` is not negative.
    public init(
        coding: RequestBodyCoding = .gzip,
        minimumBytes: Int = RequestCompressionPlugin.defaultMinimumBytes,
        level: Int = RequestCompressionPlugin.defaultLevel,
        temporaryDirectory: URL = FileManager.default.temporaryDirectory,
        priority: PluginPriority = .high
    ) {
        precondition((0...9).contains(level), "A zlib compression level is between 0 and 9")
        precondition(minimumBytes >= 0, "A minimum body size cannot be negative")
        self.coding = coding
        self.minimumBytes = minimumBytes
        self.level = level
        self.temporaryDirectory = temporaryDirectory
        self.priority = priority
    }

    /// Compresses the request's body, unless it has none, is too small, or the request names a `Content-Encoding`.
    /// - Throws: ``RequestCompressionError``, the ``UploadSourceError`` of a body that cannot be read, or
    ///   `CancellationError`; no temporary file is left behind.
    public func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
        let decision = RequestCompressionDecision(
            body: request.body, hasContentEncoding: request.head.headerFields.contains("Content-Encoding"),
            minimumBytes: Int64(minimumBytes))
        let compressor = RequestBodyCompressor(coding: coding, level: level, directory: temporaryDirectory)
        let compressed: RequestBodyCompressor.Compressed
        switch decision {
        case .leave:
            return request
        case .inMemory(let offThread):
            guard let body = request.body else { return request }
            compressed = try await compressor.compressInMemory(body, offThread: offThread)
        case .toFile:
            guard let body = request.body else { return request }
            compressed = try await compressor.compressToFile(body)
        }
        // Filed before anything else can fail, so that `didFinish` removes it whatever happens next.
        if let file = compressed.temporaryFile { files.file(file, for: context.requestNumber) }
        var request = request
        request.body = compressed.body
        // The transport frames the body from its length; a Content-Length of the uncompressed body would lie.
        request.removeHeader("Content-Length")
        try request.setHeader("Content-Encoding", coding.contentEncoding)
        return request
    }

    /// Removes the request's temporary file, if it has one. The engine calls it once per request whose `prepare`
    /// ran, on success, failure and cancellation alike.
    public func didFinish(
        _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics,
        context: PluginContext
    ) async {
        files.remove(for: context.requestNumber)
    }

    /// The temporary files of requests that have not finished yet, for tests.
    package var pendingTemporaryFiles: [URL] { files.pending }
}

extension RequestCompressionPlugin: SelectivePlugin {
    /// `prepare`, which compresses, and `didFinish` in every outcome, which removes the temporary file; no hook of
    /// any attempt.
    package var hooks: PluginHooks { [.prepare, .didSucceed, .didFail] }
}
