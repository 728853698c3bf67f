import Foundation
import LoopbackServer

/// The bytes of the large bodies: ``LoopbackBodyPattern`` (`offset % 251`), compared a block at a time with
/// `memcmp` so that checking tens of MiB costs milliseconds even in debug builds.
enum ConformancePattern {
    /// One block plus one period, so a block at any phase is a plain slice of it.
    private static let blockLength = LoopbackBodyPattern.period * 1024
    private static let block: [UInt8] = (0..<(blockLength + LoopbackBodyPattern.period)).map {
        LoopbackBodyPattern.byte(at: $0)
    }

    /// `count` bytes of the pattern from offset 0.
    static func data(count: Int) -> Data {
        var data = Data(capacity: count)
        while data.count < count {
            let piece = min(blockLength, count - data.count)
            block.withUnsafeBytes { data.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[..<piece])) }
        }
        return data
    }

    /// The first offset in `chunk` (which starts at body offset `offset`) where it differs from the pattern.
    static func firstMismatch(in chunk: Data, at offset: Int) -> Int? {
        chunk.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Int? in
            var position = 0
            // Each round compares one block or less and advances by it, so rounds ≤ chunk.count / block + 1.
            while position < bytes.count {
                let phase = (offset + position) % LoopbackBodyPattern.period
                let length = min(blockLength, bytes.count - position)
                let equal = block.withUnsafeBytes { expected in
                    memcmp(bytes.baseAddress! + position, expected.baseAddress! + phase, length) == 0
                }
                if !equal {
                    for index in position..<(position + length)
                    where bytes[index] != LoopbackBodyPattern.byte(at: offset + index) {
                        return offset + index
                    }
                }
                position += length
            }
            return nil
        }
    }
}
