import Foundation

/// A gzip body made by hand (RFC 1951 and 1952) that inflates about 1,032 times: one dynamic-Huffman block whose
/// codes give the length 258 and the distance 1 one bit each, so every 258 zero bytes cost two bits. About 0.97 MB
/// decodes to 1.0 GB of zeros; no compressor needed.
enum GzipBomb {
    /// The gzip bytes and the length they decode to.
    struct Body {
        let gzip: Data
        let decodedCount: Int
    }

    /// About `decodedBytes` of zeros (one literal zero, then copies of 258), as gzip.
    static func make(decodedBytes: Int) -> Body {
        let copies = max(0, (decodedBytes - 1) / 258)
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(2, count: 2)  // BTYPE 10: dynamic Huffman codes
        bits.write(286 - 257, count: 5)  // HLIT: literal/length codes 0...285
        bits.write(1 - 1, count: 5)  // HDIST: one distance code
        bits.write(18 - 4, count: 4)  // HCLEN: code length codes up to symbol 1 in the order below
        // Code length code lengths, in RFC 1951's order 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14,
        // 1: symbol 18 gets 1 bit ("0"), symbols 1 and 2 get 2 bits ("10", "11").
        for length in [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2] as [UInt32] {
            bits.write(length, count: 3)
        }
        // Literal/length lengths: 0 → 2, 1...255 → 0, 256 → 2, 257...284 → 0, 285 → 1; distance 0 → 1.
        let two = (code: UInt32(0b11), length: 2)
        let one = (code: UInt32(0b10), length: 2)
        let repeatZeros = (code: UInt32(0), length: 1)
        bits.writeCode(two.code, length: two.length)
        for run in [138, 117] {
            bits.writeCode(repeatZeros.code, length: repeatZeros.length)
            bits.write(UInt32(run - 11), count: 7)
        }
        bits.writeCode(two.code, length: two.length)
        bits.writeCode(repeatZeros.code, length: repeatZeros.length)
        bits.write(28 - 11, count: 7)
        bits.writeCode(one.code, length: one.length)  // 285
        bits.writeCode(one.code, length: one.length)  // distance 0
        // The data: literal 0 ("10"), then each copy as length 258 ("0") at distance 1 ("0"), then end of block ("11").
        bits.writeCode(0b10, length: 2)
        bits.writeZeros(2 * copies)
        bits.writeCode(0b11, length: 2)
        let decodedCount = 1 + 258 * copies
        var gzip = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3])
        gzip.append(contentsOf: bits.finished)
        for value in [crc32OfZeros(decodedCount), UInt32(truncatingIfNeeded: decodedCount)] {
            gzip.append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
        }
        return Body(gzip: gzip, decodedCount: decodedCount)
    }

    /// CRC-32 (IEEE) of `count` zero bytes, a byte at a time through the table.
    static func crc32OfZeros(_ count: Int) -> UInt32 {
        let table: [UInt32] = (0..<256).map { index in
            var crc = UInt32(index)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            return crc
        }
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for _ in 0..<count { crc = table[Int(crc & 0xFF)] ^ (crc >> 8) }
        }
        return ~crc
    }

    /// Packs bits least significant first, as deflate does; Huffman codes go most significant bit first.
    struct BitWriter {
        private(set) var bytes: [UInt8] = []
        private var current: UInt8 = 0
        private var used = 0

        mutating func write(_ value: UInt32, count: Int) {
            for index in 0..<count { append(bit: UInt8(truncatingIfNeeded: (value >> index) & 1)) }
        }

        mutating func writeCode(_ code: UInt32, length: Int) {
            for index in stride(from: length - 1, through: 0, by: -1) {
                append(bit: UInt8(truncatingIfNeeded: (code >> index) & 1))
            }
        }

        /// `count` zero bits: whole zero bytes once the current byte is full.
        mutating func writeZeros(_ count: Int) {
            var left = count
            while left > 0, used != 0 {
                append(bit: 0)
                left -= 1
            }
            bytes.append(contentsOf: repeatElement(0, count: left / 8))
            for _ in 0..<(left % 8) { append(bit: 0) }
        }

        private mutating func append(bit: UInt8) {
            current |= bit << used
            used += 1
            if used == 8 {
                bytes.append(current)
                current = 0
                used = 0
            }
        }

        var finished: [UInt8] { used == 0 ? bytes : bytes + [current] }
    }
}
