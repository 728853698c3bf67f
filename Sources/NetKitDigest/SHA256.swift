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
        // K, from the C module's table (imported as a tuple of 64 `UInt32`s, laid out as the C array).
        withUnsafeBytes(of: netkit_sha256_round_constants) { constants in
            let k = constants.baseAddress!.assumingMemoryBound(to: UInt32.self)
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
