internal import CNetKitZlib

/// One zlib deflate stream, writing a gzip or zlib wrapped body (``RequestBodyCoding``) in pieces of at most
/// ``pieceSize`` bytes, so that compressing a body of any size holds one output buffer and zlib's own state (about
/// 256 KiB at the default memory level) besides the caller's input buffer.
///
/// Not `Sendable`: one compression owns it, from its first byte to its last.
final class Deflater {
    /// 64 KiB: the output buffer, and the most bytes one call of `emit` is given.
    static let pieceSize = 64 * 1024
    /// 1 GiB: the most input handed to zlib at once; its counters are 32-bit.
    private static let largestInput = 1 << 30

    private let stream: UnsafeMutablePointer<z_stream>
    private let output: UnsafeMutableRawBufferPointer

    /// Starts a stream of `coding` at `level` (0 stores, 1 is fastest, 9 smallest).
    /// - Throws: ``RequestCompressionError/compressorFailed(code:)`` when zlib cannot start (out of memory).
    init(coding: RequestBodyCoding, level: Int) throws(RequestCompressionError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // deflateInit2 is a macro, which Swift cannot call; it passes the header's version and the struct's size so
        // that zlib can refuse a library that does not match the header compiled against.
        let code = deflateInit2_(
            stream, Int32(level), Z_DEFLATED, coding.windowBits, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size))
        guard code == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw .compressorFailed(code: code)
        }
        output = .allocate(byteCount: Self.pieceSize, alignment: 1)
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        output.deallocate()
    }

    /// Compresses `input`, the next bytes of the body, calling `emit` with each piece of output as it is made (a
    /// view valid only during the call); `finish` ends the stream after them, with its trailer.
    /// - Throws: ``RequestCompressionError/compressorFailed(code:)``, or what `emit` throws.
    func compress(
        _ input: UnsafeRawBufferPointer, finish: Bool,
        emit: (UnsafeRawBufferPointer) throws(RequestCompressionError) -> Void
    ) throws(RequestCompressionError) {
        var rest = input
        repeat {
            let count = min(rest.count, Self.largestInput)
            let isLast = count == rest.count
            try run(UnsafeRawBufferPointer(rebasing: rest[..<count]), finish: finish && isLast, emit: emit)
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
        } while !rest.isEmpty
    }

    /// One run of zlib over `input` (at most ``largestInput`` bytes), until it has taken every byte (and, with
    /// `finish`, written the trailer).
    private func run(
        _ input: UnsafeRawBufferPointer, finish: Bool,
        emit: (UnsafeRawBufferPointer) throws(RequestCompressionError) -> Void
    ) throws(RequestCompressionError) {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        defer {
            // No pointer into the caller's memory outlives the call.
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
            stream.pointee.next_out = nil
            stream.pointee.avail_out = 0
        }
        let flush = finish ? Z_FINISH : Z_NO_FLUSH
        while true {
            stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(output.count)
            let code = deflate(stream, flush)
            // Z_BUF_ERROR: no progress was possible (no input left and nothing to flush); not an error.
            guard code == Z_OK || code == Z_STREAM_END || code == Z_BUF_ERROR else {
                throw .compressorFailed(code: code)
            }
            let produced = output.count - Int(stream.pointee.avail_out)
            if produced > 0 { try emit(UnsafeRawBufferPointer(rebasing: output[..<produced])) }
            if finish {
                if code == Z_STREAM_END { return }
                // With room for output zlib always makes progress while finishing; no progress means it cannot.
                if code == Z_BUF_ERROR && produced == 0 { throw .compressorFailed(code: code) }
            } else if stream.pointee.avail_out != 0 {
                // Room was left: zlib has taken all the input and keeps the rest of its output for later.
                return
            }
        }
    }
}
