/// CRC-32 (ISO-HDLC, the checksum of zip, gzip and PNG), computed incrementally: the disk cache seals each entry
/// file with it, so that a truncated or damaged file is told from a whole one before anything in it is used.
///
/// A checksum against accidents (a torn write, a flipped bit), not a defence against someone who may write the
/// file: the cache directory is the user's own.
///
/// Eight bytes a step ("slicing-by-8": eight tables, one per byte's distance from the end of the step), about eight
/// times the speed of a byte at a time: a cache hit on a 64 KiB body checks every byte.
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
        guard let base = bytes.baseAddress else { return }
        var crc = ~value
        var index = 0
        let count = bytes.count
        Self.tables.withUnsafeBufferPointer { tables in
            let t = tables.baseAddress!
            while count - index >= 8 {
                let low = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt32.self)) ^ crc
                let high = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: index &+ 4, as: UInt32.self))
                crc =
                    t[7 &* 256 &+ Int(low & 0xFF)] ^ t[6 &* 256 &+ Int((low &>> 8) & 0xFF)]
                    ^ t[5 &* 256 &+ Int((low &>> 16) & 0xFF)] ^ t[4 &* 256 &+ Int(low &>> 24)]
                    ^ t[3 &* 256 &+ Int(high & 0xFF)] ^ t[2 &* 256 &+ Int((high &>> 8) & 0xFF)]
                    ^ t[256 &+ Int((high &>> 16) & 0xFF)] ^ t[Int(high &>> 24)]
                index &+= 8
            }
            while index < count {
                crc = t[Int((crc ^ UInt32(base.load(fromByteOffset: index, as: UInt8.self))) & 0xFF)] ^ (crc &>> 8)
                index &+= 1
            }
        }
        value = ~crc
    }

    /// The eight tables, one after the other: table 0 holds the remainder of each byte value for the reflected
    /// polynomial 0xEDB88320, and table k that of a byte followed by k zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            tables[index] = crc
        }
        for table in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(table - 1) * 256 + index]
                tables[table * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()
}
