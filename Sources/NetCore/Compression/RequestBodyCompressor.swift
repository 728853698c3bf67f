import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// Carries out a ``RequestCompressionDecision``: compresses a body into one run of memory, or piece by piece into a
/// ``CompressedBodyFile``. The I/O beside the pure decision.
struct RequestBodyCompressor: Sendable {
    /// A compressed body, with the temporary file it is sent from, if any (the caller removes it when the request
    /// ends).
    struct Compressed: Sendable {
        let body: UploadSource
        let temporaryFile: URL?
    }

    /// 64 KiB: how much of a file or stream is read at a time. With ``Deflater/pieceSize`` of output and zlib's own
    /// state, what a body of any size costs in memory while it is compressed.
    static let readSize = 64 * 1024
    /// 1 MiB: how much of a body in memory is compressed between two looks at cancellation.
    static let memorySlice = 1 << 20

    let coding: RequestBodyCoding
    let level: Int
    let directory: URL

    /// `body`, every segment of which is in memory, compressed into one `.data` segment: as replayable as before,
    /// of known length. `offThread`: on a thread of its own rather than the caller's.
    /// - Throws: ``RequestCompressionError/compressorFailed(code:)``, or `CancellationError`.
    func compressInMemory(_ body: UploadSource, offThread: Bool) async throws -> Compressed {
        let data =
            offThread
            ? try await Self.onOwnThread { cancellation in
                try deflateInMemory(body, isCancelled: { cancellation.isCancelled })
            }
            : try deflateInMemory(body, isCancelled: { Task.isCancelled })
        return Compressed(body: UploadSource(data: data), temporaryFile: nil)
    }

    /// `body`, of files and streams, compressed piece by piece into a new temporary file, on a thread of its own:
    /// reading a file or a stream blocks, and a stream may be waiting for bytes still being produced. The body
    /// sent is that file: replayable, of known length. A stream is read here, once.
    /// - Throws: ``RequestCompressionError``, the ``UploadSourceError`` of a body that cannot be read, or
    ///   `CancellationError`; the temporary file is removed first.
    func compressToFile(_ body: UploadSource) async throws -> Compressed {
        try await Self.onOwnThread { cancellation in
            try deflateToFile(body, isCancelled: { cancellation.isCancelled })
        }
    }

    /// The compression of a body in memory, on the calling thread.
    func deflateInMemory(_ body: UploadSource, isCancelled: () -> Bool) throws -> Data {
        let deflater = try Deflater(coding: coding, level: level)
        var output = Data()
        let append: (UnsafeRawBufferPointer) throws(RequestCompressionError) -> Void = { output.append(contentsOf: $0) }
        for segment in body.segments {
            guard case .data(let data) = segment else { preconditionFailure("a body in memory has only data") }
            var start = data.startIndex
            while start < data.endIndex {
                if isCancelled() { throw CancellationError() }
                let end = data.index(start, offsetBy: min(Self.memorySlice, data.endIndex - start))
                try data[start..<end].withUnsafeBytes { bytes in
                    try deflater.compress(bytes, finish: false, emit: append)
                }
                start = end
            }
        }
        try deflater.compress(UnsafeRawBufferPointer(start: nil, count: 0), finish: true, emit: append)
        return output
    }

    /// The compression of a body of files and streams into a temporary file, on the calling thread. The file is
    /// made before the body is read, so that a body with a stream is not consumed when no file can be made.
    func deflateToFile(_ body: UploadSource, isCancelled: () -> Bool) throws -> Compressed {
        let file = try CompressedBodyFile(in: directory)
        do {
            let reader = try body.makeReader()
            defer { reader.close() }
            let deflater = try Deflater(coding: coding, level: level)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 1)
            defer { buffer.deallocate() }
            while true {
                if isCancelled() { throw CancellationError() }
                let count = try reader.read(into: buffer)
                try deflater.compress(UnsafeRawBufferPointer(rebasing: buffer[..<count]), finish: count == 0) {
                    piece throws(RequestCompressionError) in try file.write(piece)
                }
                if count == 0 { break }
            }
            let written = try file.finish()
            return Compressed(body: UploadSource(segments: [.file(written)]), temporaryFile: file.url)
        } catch {
            file.discard()
            throw error
        }
    }

    /// Runs `work` on a thread of its own, never on the cooperative pool, and returns what it returns; cancelling
    /// the calling task sets the flag `work` is handed, which it reads between pieces. Returns only once `work` has,
    /// so nothing it made outlives the call unseen.
    private static func onOwnThread<Value: Sendable>(
        _ work: @escaping @Sendable (Cancellation) throws -> Value
    ) async throws -> Value {
        try Task.checkCancellation()
        let cancellation = Cancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // A queue of its own targets an overcommitting global queue: a read that blocks (a stream waiting
                // for its producer) takes a thread of its own rather than one of the few the global queues share.
                DispatchQueue(label: "NetKit.RequestCompression").async {
                    continuation.resume(with: Result { try work(cancellation) })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// Whether the task that waits for a compression on its own thread was cancelled.
    final class Cancellation: Sendable {
        private let flag = Atomic(false)

        var isCancelled: Bool { flag.load(ordering: .acquiring) }

        func cancel() {
            flag.store(true, ordering: .releasing)
        }
    }
}
