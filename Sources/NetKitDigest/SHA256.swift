internal import CNetKitSHA256

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// SHA-256 (FIPS 180-4), computed incrementally: the loopback server summarises bodies far larger than it could
/// hold, tests compute the digest they expect the same way, and the response cache keeps digests of credentials
/// and targets on disk in place of the values.
///
/// Written here because the toolchain offers no hash on Linux (CryptoKit is Apple-only) and the
/// package takes no dependencies. Whole blocks are hashed straight from the caller's memory; only
/// a trailing partial block (under 64 bytes) is copied. On a processor with SHA-256 instructions
/// (x86-64's SHA extensions) the blocks go through them, about five times as fast as the Swift
/// rounds below, which every other processor uses.
package struct SHA256: Sendable {
    /// Whether this process's processor has the SHA-256 instructions a hash uses by default.
    package static let hardwareAvailable = netkit_sha256_hardware_available() != 0

    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    /// The bytes of an incomplete block, waiting for more input.
    private var partial: [UInt8] = []
    /// Bytes hashed so far, including those in `partial`.
    private var length: UInt64 = 0
    /// Whether whole blocks go through the processor's SHA-256 instructions.
    private let usesHardware: Bool

    /// Starts a new hash, with the processor's SHA-256 instructions when it has them.
    package init() {
        self.init(usingHardware: Self.hardwareAvailable)
    }

    /// Starts a new hash that uses the processor's SHA-256 instructions only if `usingHardware` and it has them
    /// (tests compare the two roads).
    package init(usingHardware: Bool) {
        usesHardware = usingHardware && Self.hardwareAvailable
        partial.reserveCapacity(64)
    }

    /// The SHA-256 of `bytes` in one call.
    package static func hash(_ bytes: some ContiguousBytes) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// `digest` as lowercase hexadecimal, the form test expectations and `sha256sum` use.
    package static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Adds `bytes` (a `Data`, a `[UInt8]`, a raw buffer…) to the message.
    package mutating func update(_ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { update(buffer: $0) }
    }

    /// Adds the bytes of `buffer`; hashes whole blocks in place.
    package mutating func update(buffer: UnsafeRawBufferPointer) {
        guard var base = buffer.baseAddress, !buffer.isEmpty else { return }
        var count = buffer.count
        length &+= UInt64(count)
        if !partial.isEmpty {
            let taken = min(64 - partial.count, count)
            partial.append(contentsOf: UnsafeRawBufferPointer(start: base, count: taken))
            base += taken
            count -= taken
            guard partial.count == 64 else { return }
            partial.withUnsafeBytes { compress(blocks: $0.baseAddress!, count: 1) }
            partial.removeAll(keepingCapacity: true)
        }
        let whole = count / 64
        if whole > 0 {
            compress(blocks: base, count: whole)
            base += whole * 64
            count -= whole * 64
        }
        if count > 0 {
            partial.append(contentsOf: UnsafeRawBufferPointer(start: base, count: count))
        }
    }

    /// The 32-byte digest of everything added so far; the hash itself is left as it was, so it
    /// may go on being updated (the result then covers the longer message).
    package func finalize() -> [UInt8] {
        var copy = self
        let bitLength = length &* 8
        // Padding: 0x80, zeros up to 56 mod 64, then the 64-bit big-endian message length.
        var padding: [UInt8] = [0x80]
        let afterMarker = (partial.count + 1) % 64
        padding += [UInt8](repeating: 0, count: afterMarker <= 56 ? 56 - afterMarker : 120 - afterMarker)
        for shift in stride(from: 56, through: 0, by: -8) {
            padding.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        let savedLength = copy.length
        copy.update(padding)
        copy.length = savedLength
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        let words = [
            copy.state.0, copy.state.1, copy.state.2, copy.state.3,
            copy.state.4, copy.state.5, copy.state.6, copy.state.7,
        ]
        for word in words {
            digest += [
                UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16),
                UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word),
            ]
        }
        return digest
    }

    // MARK: - Compression

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// Hashes `count` consecutive 64-byte blocks starting at `blocks` (any alignment).
    ///
    /// The rounds are unrolled by eight with the working variables' roles rotated instead of the
    /// values moved, which keeps them in registers; this is what makes the hash fast enough for
    /// gigabyte uploads.
    private mutating func compress(blocks: UnsafeRawPointer, count: Int) {
        if usesHardware {
            // A tuple of eight `UInt32`s is laid out as the C array `uint32_t[8]` (C arrays are imported as such tuples).
            withUnsafeMutableBytes(of: &state) { words in
                netkit_sha256_hardware_compress(
                    words.baseAddress!.assumingMemoryBound(to: UInt32.self),
                    blocks.assumingMemoryBound(to: UInt8.self), count)
            }
            return
        }
        var (h0, h1, h2, h3, h4, h5, h6, h7) = state
        Self.roundConstants.withUnsafeBufferPointer { constants in
            let k = constants.baseAddress!
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
                let w = schedule.baseAddress!
                for block in 0..<count {
                    let input = blocks + block &* 64
                    for t in 0..<16 {
                        w[t] = UInt32(bigEndian: input.loadUnaligned(fromByteOffset: t &* 4, as: UInt32.self))
                    }
                    for t in 16..<64 {
                        let x = w[t &- 15]
                        let y = w[t &- 2]
                        let s0 = x.rotatedRight(7) ^ x.rotatedRight(18) ^ (x &>> 3)
                        let s1 = y.rotatedRight(17) ^ y.rotatedRight(19) ^ (y &>> 10)
                        w[t] = w[t &- 16] &+ s0 &+ w[t &- 7] &+ s1
                    }
                    var a = h0
                    var b = h1
                    var c = h2
                    var d = h3
                    var e = h4
                    var f = h5
                    var g = h6
                    var h = h7
                    var t = 0
                    while t < 64 {
                        Self.round(a, b, c, &d, e, f, g, &h, k[t] &+ w[t])
                        Self.round(h, a, b, &c, d, e, f, &g, k[t &+ 1] &+ w[t &+ 1])
                        Self.round(g, h, a, &b, c, d, e, &f, k[t &+ 2] &+ w[t &+ 2])
                        Self.round(f, g, h, &a, b, c, d, &e, k[t &+ 3] &+ w[t &+ 3])
                        Self.round(e, f, g, &h, a, b, c, &d, k[t &+ 4] &+ w[t &+ 4])
                        Self.round(d, e, f, &g, h, a, b, &c, k[t &+ 5] &+ w[t &+ 5])
                        Self.round(c, d, e, &f, g, h, a, &b, k[t &+ 6] &+ w[t &+ 6])
                        Self.round(b, c, d, &e, f, g, h, &a, k[t &+ 7] &+ w[t &+ 7])
                        t &+= 8
                    }
                    h0 &+= a
                    h1 &+= b
                    h2 &+= c
                    h3 &+= d
                    h4 &+= e
                    h5 &+= f
                    h6 &+= g
                    h7 &+= h
                }
            }
        }
        state = (h0, h1, h2, h3, h4, h5, h6, h7)
    }

    /// One round of FIPS 180-4 §6.2.2 step 3, written for rotated roles: instead of shifting all
    /// eight variables, it adds T1 to `d` (which becomes the new `e`) and stores T1 + T2 in `h`
    /// (which becomes the new `a`).
    @inline(__always)
    private static func round(
        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
        _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32,
        _ constantPlusWord: UInt32
    ) {
        let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
        let choice = g ^ (e & (f ^ g))
        let t1 = h &+ sum1 &+ choice &+ constantPlusWord
        let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
        let majority = (a & b) | (c & (a | b))
        d &+= t1
        h = t1 &+ sum0 &+ majority
    }
}

extension UInt32 {
    /// ROTR of FIPS 180-4 §3.2; masking shifts (no over-shift checks) let it compile to one rotate.
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 {
        (self &>> count) | (self &<< (32 &- count))
    }
}
