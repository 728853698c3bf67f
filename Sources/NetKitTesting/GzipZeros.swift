import Foundation

/// gzip and zlib bodies made by hand (RFC 1950, 1951 and 1952), so the tests need no compressor.
package enum GzipZeros {
    /// The decoded length of ``make()``: one literal zero, then 81,284 copies of 258 zeros.
    package static let decodedCount = 1 + 258 * 81_284
    /// CRC-32 of ``decodedCount`` zero bytes (computed once with zlib).
    package static let decodedCRC: UInt32 = 0xBCDE_D41F

    /// About 130 KiB of gzip that decodes to 20 MiB of zeros (a ratio of about 160): one fixed-Huffman block of a
    /// literal zero followed by back-references of 258 bytes at distance 1.
    package static func make() -> Data {
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman codes
        bits.writeCode(0x30, length: 8)  // literal 0
        for _ in 0..<81_284 {
            bits.writeCode(0xC5, length: 8)  // length 258 (symbol 285)
            bits.writeCode(0, length: 5)  // distance 1 (code 0)
        }
        bits.writeCode(0, length: 7)  // end of block (symbol 256)
        return wrap(bits.finished, crc: decodedCRC, count: decodedCount)
    }

    /// `data` as gzip of stored (uncompressed) blocks.
    package static func stored(_ data: Data) -> Data {
        wrap(Array(storedBlocks(data)), crc: crc32(data), count: data.count)
    }

    /// `data` as the zlib format (RFC 1950, HTTP's `deflate`) of stored blocks.
    package static func zlibStored(_ data: Data) -> Data {
        var zlib = Data([0x78, 0x01])
        zlib.append(storedBlocks(data))
        let adler = adler32(data)
        zlib.append(contentsOf: (0..<4).reversed().map { UInt8(truncatingIfNeeded: adler >> (8 * $0)) })
        return zlib
    }

    /// `data` as deflate stored blocks (RFC 1951 §3.2.4).
    private static func storedBlocks(_ data: Data) -> Data {
        var deflate = Data()
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let final = offset + count == data.count
            deflate.append(final ? 1 : 0)  // BFINAL, BTYPE 00, padded to the byte
            deflate.append(contentsOf: [UInt8(count & 0xFF), UInt8(count >> 8)])
            deflate.append(contentsOf: [UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)])
            deflate.append(data[data.startIndex + offset..<data.startIndex + offset + count])
            offset += count
        } while offset < data.count
        return deflate
    }

    private static func wrap(_ deflate: [UInt8], crc: UInt32, count: Int) -> Data {
        var gzip = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3])
        gzip.append(contentsOf: deflate)
        for value in [crc, UInt32(truncatingIfNeeded: count)] {
            gzip.append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
        }
        return gzip
    }

    /// Adler-32 of `data` (RFC 1950 §8).
    static func adler32(_ data: Data) -> UInt32 {
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    /// CRC-32 of `data` (RFC 1952 §8).
    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// Packs bits least significant first, as deflate does.
    struct BitWriter {
        var bytes: [UInt8] = []
        private var current: UInt32 = 0
        private var used = 0

        /// Writes the low `count` bits of `value`, least significant first (header fields, extra bits).
        mutating func write(_ value: UInt32, count: Int) {
            for index in 0..<count { push(UInt8((value >> index) & 1)) }
        }

        /// Writes a Huffman code, most significant bit first.
        mutating func writeCode(_ code: UInt32, length: Int) {
            for index in stride(from: length - 1, through: 0, by: -1) { push(UInt8((code >> index) & 1)) }
        }

        private mutating func push(_ bit: UInt8) {
            current |= UInt32(bit) << used
            used += 1
            if used == 8 {
                bytes.append(UInt8(current))
                current = 0
                used = 0
            }
        }

        /// The bytes, the last one padded with zeros.
        var finished: [UInt8] { used == 0 ? bytes : bytes + [UInt8(current)] }
    }
}
