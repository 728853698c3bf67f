#if AsyncHTTPClient
import NetCore
import NIOCore
import NIOPosix
import NetKitLock

/// Pulls an upload body from an `UploadReader` piece by piece as AsyncHTTPClient asks for it, so the body
/// streams with the connection's backpressure (AsyncHTTPClient asks only while the socket can take more).
///
/// Reports upload progress as pieces are handed over, remembers when it last did (the idle timer before the
/// response head), and keeps the reader's first error so the transport can throw it instead of a generic one.
/// Files and streams are read on NIO's blocking-I/O thread pool, never on Swift's cooperative threads: an
/// `InputStream` may block. `Sendable` because the non-`Sendable` reader is only touched inside `state`'s lock.
final class UploadPump: Sendable {
    /// The most bytes read per piece.
    static let pieceSize = 256 * 1024

    private struct State {
        var reader: UploadReader?
        var sent: Int64 = 0
        var lastActivity: ContinuousClock.Instant
        var error: UploadSourceError?
        var isClosed = false
        /// Whether the head was told sent (the body is told once, when the reader ends).
        var toldHead = false
    }

    private let state: Lock<State>
    /// The body's size, when known: sent as `Content-Length`, and the total of progress.
    let length: Int64?
    private let progress: NetworkProgress?
    /// Where what was sent is told (``NetCore/TransportRequest/onSent``).
    private let onSent: (@Sendable (TransportRequest.SentPart) -> Void)?
    /// Whether reading can block (files, streams): then it happens on the blocking-I/O pool.
    private let readsBlock: Bool

    init(
        reader: sending UploadReader, length: Int64?, readsBlock: Bool, progress: NetworkProgress?,
        onSent: (@Sendable (TransportRequest.SentPart) -> Void)?
    ) {
        self.state = Lock(State(reader: reader, lastActivity: .now))
        self.length = length
        self.readsBlock = readsBlock
        self.progress = progress
        self.onSent = onSent
    }

    /// The pump of `source`.
    /// - Throws: ``NetworkError/uploadStreamConsumed`` for a source whose one-shot stream was already taken.
    static func make(
        for source: UploadSource, progress: NetworkProgress?,
        onSent: (@Sendable (TransportRequest.SentPart) -> Void)?
    ) throws(NetworkError) -> UploadPump {
        let reader: UploadReader
        do {
            reader = try source.makeReader()
        } catch {
            // The only error a new reader can meet: a one-shot stream already taken.
            throw .uploadStreamConsumed
        }
        let readsBlock = source.segments.contains { segment in
            if case .data = segment { false } else { true }
        }
        return UploadPump(
            reader: reader, length: source.length, readsBlock: readsBlock, progress: progress, onSent: onSent)
    }

    /// The error that stopped reading, if any.
    var error: UploadSourceError? { state.withLock { $0.error } }

    /// When a piece was last handed over (or the pump was created).
    var lastActivity: ContinuousClock.Instant { state.withLock { $0.lastActivity } }

    /// The next piece, or `nil` at the end of the body.
    /// - Throws: the reader's ``UploadSourceError`` (a file or stream that broke its declared length), or
    ///   ``UploadSourceError/readerClosed`` once the transfer was stopped.
    func next() async throws -> ByteBuffer? {
        if readsBlock {
            return try await NIOThreadPool.singleton.runIfActive { try self.readPiece() }
        }
        return try readPiece()
    }

    /// Stops reading and closes every open file and stream of the body; later reads fail. Idempotent.
    func close() {
        state.withLock { state in
            state.reader?.close()
            state.reader = nil
            state.isClosed = true
        }
    }

    /// Tells the head sent, unless it was: the response head has arrived, so it went out.
    func tellHeadSent() {
        guard let onSent else { return }
        let untold = state.withLock { state in
            defer { state.toldHead = true }
            return !state.toldHead
        }
        if untold { onSent(.head) }
    }

    private func readPiece() throws -> ByteBuffer? {
        var buffer = ByteBufferAllocator().buffer(capacity: Self.pieceSize)
        var news = (head: false, body: Int64?.none)
        let sent: Int64? = try state.withLock { state throws -> Int64? in
            guard let reader = state.reader else {
                if let error = state.error { throw error }
                if state.isClosed { throw UploadSourceError.readerClosed }
                return nil
            }
            // AsyncHTTPClient asks for the body once it has written the head.
            news.head = !state.toldHead
            state.toldHead = true
            do {
                let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.pieceSize) { bytes in
                    try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[..<Self.pieceSize]))
                }
                state.lastActivity = .now
                guard count > 0 else {
                    // The end: release the last file now rather than whenever the pump is dropped. Asked for more
                    // after the last piece, AsyncHTTPClient has taken every byte.
                    reader.close()
                    state.reader = nil
                    news.body = state.sent
                    return nil
                }
                state.sent += Int64(count)
                return state.sent
            } catch let error as UploadSourceError {
                state.error = error
                state.reader = nil
                throw error
            }
        }
        if let onSent {
            if news.head { onSent(.head) }
            if let body = news.body { onSent(.body(bytes: body)) }
        }
        guard let sent else { return nil }
        // Bytes handed to AsyncHTTPClient, which writes them as the socket takes them: the nearest it tells.
        progress?.reportSent(sent, of: length)
        return buffer
    }
}

/// The pieces of an ``UploadPump`` as the `AsyncSequence` AsyncHTTPClient streams a request body from.
struct UploadPieces: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let pump: UploadPump

    func makeAsyncIterator() -> Iterator {
        Iterator(pump: pump)
    }

    struct Iterator: AsyncIteratorProtocol {
        let pump: UploadPump

        func next() async throws -> ByteBuffer? {
            try await pump.next()
        }
    }
}
#endif
