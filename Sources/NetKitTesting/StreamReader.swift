import Foundation
import NetCore

/// Reads an upload body to its end, for transports that need the bytes in memory.
enum StreamReader {
    /// Reads an upload body to its end.
    /// - Throws: the ``UploadSourceError`` of a file or stream that broke its declared length.
    static func readAll(_ reader: UploadReader) throws(UploadSourceError) -> Data {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer {
            buffer.deallocate()
            reader.close()
        }
        var data = Data()
        while true {
            let count = try reader.read(into: buffer)
            guard count > 0 else { return data }
            data.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }
}
