internal import CNetKitZlib
import Foundation
import NetCore

/// zlib's inflate, to check what `RequestCompressionPlugin` made with the library servers decode it with.
package enum Zlib {
    /// zlib's code for why a stream did not inflate.
    package struct Failure: Error {
        package let code: Int32
    }

    /// `data` inflated, accepting only the format of `coding` (gzip's or zlib's wrapper), and only a whole stream.
    package static func inflate(_ data: Data, coding: RequestBodyCoding) throws -> Data {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer {
            inflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
        let windowBits: Int32 = coding == .gzip ? 15 + 16 : 15
        guard CNetKitZlib_inflateInit2(stream, windowBits) == Z_OK else { throw Failure(code: Z_MEM_ERROR) }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var code = Z_OK
        try data.withUnsafeBytes { (input: UnsafeRawBufferPointer) in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.pointee.avail_in = uInt(input.count)
            while code != Z_STREAM_END {
                let produced = buffer.withUnsafeMutableBytes { target -> Int in
                    stream.pointee.next_out = target.bindMemory(to: Bytef.self).baseAddress
                    stream.pointee.avail_out = uInt(target.count)
                    code = CNetKitZlib.inflate(stream, Z_NO_FLUSH)
                    return target.count - Int(stream.pointee.avail_out)
                }
                guard code == Z_OK || code == Z_STREAM_END else { throw Failure(code: code) }
                output.append(contentsOf: buffer[..<produced])
                if code == Z_OK && produced == 0 && stream.pointee.avail_in == 0 { throw Failure(code: Z_BUF_ERROR) }
            }
            // Nothing may follow the end of the stream.
            guard stream.pointee.avail_in == 0 else { throw Failure(code: Z_DATA_ERROR) }
        }
        return output
    }

    /// Whether `data` begins as `coding`'s format does: gzip's magic number, or a zlib header for deflate with a
    /// 32 KiB window whose check bits hold.
    package static func hasHeader(of coding: RequestBodyCoding, _ data: Data) -> Bool {
        guard data.count >= 2 else { return false }
        let first = data[data.startIndex]
        let second = data[data.startIndex + 1]
        switch coding {
        case .gzip: return first == 0x1f && second == 0x8b
        case .deflate: return first == 0x78 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
        }
    }
}
