/// CRC-32 (ISO-HDLC, the checksum of zip, gzip and PNG), computed incrementally: the disk cache seals each entry
/// file with it, so that a truncated or damaged file is told from a whole one before anything in it is used.
///
/// A checksum against accidents (a torn write, a flipped bit), not a defence against someone who may write the
/// file: the cache directory is the user's own.
package struct CRC32: Sendable {
    /// The checksum of everything added so far.
    package private(set) var value: UInt32 = 0

    /// Starts a new checksum.
    package init() {}

    /// The checksum of `bytes` in one call.
    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// Adds `bytes` to the message.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = ~value
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        value = ~crc
    }

    /// The remainders of every byte value, for the reflected polynomial 0xEDB88320.
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 {
            crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
        }
        return crc
    }
}
