import Foundation
import NetKitDigest
import Testing

/// CRC-32 (ISO-HDLC) as the disk cache seals its files: the standard check value, zlib's values, and the same
/// result eight bytes a step as a byte at a time, however the message is split.
@Suite("CRC-32")
struct CRC32Tests {
    static func crc(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { CRC32.checksum($0) }
    }

    /// A byte at a time, straight from the polynomial: the reference the tables must agree with.
    static func reference(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test("the check value and zlib's values")
    func knownValues() {
        #expect(Self.crc(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Self.crc([]) == 0)
        #expect(Self.crc(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
    }

    @Test("eight bytes a step agree with a byte at a time, for every length up to 100 and a long message")
    func agreesWithTheReference() {
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...100) + [4096, 65_537] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(Self.crc(bytes) == Self.reference(bytes), "length \(length)")
        }
    }

    @Test("a message split anywhere gives the same checksum")
    func incremental() {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = Self.crc(bytes)
        for split in stride(from: 0, through: bytes.count, by: 7) {
            var crc = CRC32()
            bytes[..<split].withUnsafeBytes { crc.update($0) }
            bytes[split...].withUnsafeBytes { crc.update($0) }
            #expect(crc.value == whole, "split at \(split)")
        }
    }
}
