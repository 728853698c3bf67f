#if AsyncHTTPClient
import CNetKitZlib
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One zlib inflate stream: the decoder of one content coding, gzip (RFC 1952) or deflate (zlib, RFC 1950), told
/// apart by their first bytes as SwiftNIO's decompressor does.
///
/// Each call decodes into at most a given number of bytes, so a compression bomb costs one output piece at a time.
/// Not `Sendable`: one iterator owns it.
final class Inflater {
    /// Why decoding failed.
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// zlib could not start (out of memory): its code.
        case initialization(Int32)
        /// The data is not a valid gzip or zlib stream: zlib's code and message.
        case data(Int32, String)
        /// Bytes came after the end of the stream.
        case trailingData
        /// The body ended before the stream did.
        case truncated

        var description: String {
            switch self {
            case .initialization(let code): "zlib could not start (code \(code))"
            case .data(let code, let message): "the data does not decode (zlib code \(code): \(message))"
            case .trailingData: "bytes follow the end of the compressed data"
            case .truncated: "the body ended before the compressed data did"
            }
        }
    }

    /// 15 + 32: a window of up to 32 KiB, gzip or zlib told apart by their headers.
    private static let windowBits: Int32 = 15 + 32

    private let stream: UnsafeMutablePointer<z_stream>
    /// Whether the stream's end has been decoded.
    private(set) var isFinished = false

    init() throws(Failure) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let code = CNetKitZlib_inflateInit2(stream, Self.windowBits)
        guard code == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw .initialization(code)
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Decodes bytes of `input` from `offset` on (which moves past what was consumed) into at most `capacity` new
    /// bytes. Empty when zlib needs more input (or consumed only a header); less than `capacity` means it wants input.
    /// - Throws: ``Failure/data(_:_:)`` for data that does not decode.
    func decode(_ input: Data, from offset: inout Int, capacity: Int) throws(Failure) -> Data {
        guard !isFinished else { return Data() }
        var output = Data(count: capacity)
        let available = min(input.count - offset, Int(UInt32.max))
        var code = Z_OK
        var produced = 0
        var consumed = 0
        input.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
            output.withUnsafeMutableBytes { (target: UnsafeMutableRawBufferPointer) in
                let start = source.baseAddress.map { $0.advanced(by: offset) }
                stream.pointee.next_in = UnsafeMutablePointer(
                    mutating: start?.assumingMemoryBound(to: Bytef.self))
                stream.pointee.avail_in = uInt(available)
                stream.pointee.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(capacity)
                code = inflate(stream, Z_NO_FLUSH)
                consumed = available - Int(stream.pointee.avail_in)
                produced = capacity - Int(stream.pointee.avail_out)
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
                stream.pointee.avail_in = 0
                stream.pointee.avail_out = 0
            }
        }
        offset += consumed
        switch code {
        case Z_OK, Z_BUF_ERROR:
            // Z_BUF_ERROR: no progress possible without more input; not an error.
            break
        case Z_STREAM_END:
            isFinished = true
        default:
            let message = stream.pointee.msg.map { String(cString: $0) } ?? "no message"
            throw .data(code, message)
        }
        output.count = produced
        return output
    }
}
#endif
