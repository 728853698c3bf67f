import NetKitDigest
import Foundation
import LoopbackServer
import Testing

@Suite("SHA-256")
struct SHA256Tests {
    private static func hex(_ text: String, hardware: Bool = SHA256.hardwareAvailable) -> String {
        var hasher = SHA256(usingHardware: hardware)
        hasher.update(Array(text.utf8))
        return SHA256.hex(hasher.finalize())
    }

    /// FIPS 180-4 examples (NIST CSRC "SHA-256" example values, and the long message of FIPS 180-2 appendix B.3), by
    /// the Swift rounds and by the processor's SHA-256 instructions (where it has none, both are the Swift rounds).
    @Test(arguments: [false, true])
    func matchesTheNISTVectors(hardware: Bool) {
        #expect(Self.hex("", hardware: hardware) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            Self.hex("abc", hardware: hardware) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Self.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", hardware: hardware)
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            Self.hex(
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                hardware: hardware
            ) == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    /// The two roads give the same digest for every length up to five blocks and a megabyte split at odd places, so
    /// the instructions' state layout, message schedule and block loop are checked against the Swift rounds.
    @Test func hardwareAndSwiftRoundsAgree() {
        let message = [UInt8](LoopbackBodyPattern.data(count: (1 << 20) + 77))
        for length in 0...320 {
            var swift = SHA256(usingHardware: false)
            var hardware = SHA256(usingHardware: true)
            swift.update(message[0..<length])
            hardware.update(message[0..<length])
            #expect(hardware.finalize() == swift.finalize(), "length \(length)")
        }
        var swift = SHA256(usingHardware: false)
        var hardware = SHA256(usingHardware: true)
        var offset = 0
        var step = 1
        while offset < message.count {
            let end = min(message.count, offset + step)
            swift.update(message[offset..<end])
            hardware.update(message[offset..<end])
            offset = end
            step = step * 3 + 1
        }
        #expect(hardware.finalize() == swift.finalize())
        #expect(SHA256.hex(swift.finalize()) == SHA256.hex(SHA256.hash(message)))
    }

    @Test func matchesTheMillionAVector() {
        var hasher = SHA256()
        let thousand = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(thousand) }

        #expect(
            SHA256.hex(hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Lengths around the padding edges (55/56 bytes leave room for the length or not), checked against `sha256sum`.
    @Test(arguments: [
        (55, "463eb28e72f82e0a96c0a4cc53690c571281131f672aa229e0d45ae59b598b59"),
        (56, "da2ae4d6b36748f2a318f23e7ab1dfdf45acdc9d049bd80e59de82a60895f562"),
        (57, "2fe741af801cc238602ac0ec6a7b0c3a8a87c7fc7d7f02a3fe03d1c12eac4d8f"),
        (63, "29af2686fd53374a36b0846694cc342177e428d1647515f078784d69cdb9e488"),
        (64, "fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108"),
        (65, "4bfd2c8b6f1eec7a2afeb48b934ee4b2694182027e6d0fc075074f2fabb31781"),
        (119, "da18797ed7c3a777f0847f429724a2d8cd5138e6ed2895c3fa1a6d39d18f7ec6"),
        (120, "f52b23db1fbb6ded89ef42a23ce0c8922c45f25c50b568a93bf1c075420bbb7c"),
        (1000, "4e4c294b331f7a2099a379bec34b9f9fc03dc46ab465d998f4d683da53487e6d"),
    ])
    func handlesEveryPaddingEdge(length: Int, expected: String) {
        #expect(SHA256.hex(SHA256.hash(LoopbackBodyPattern.data(count: length))) == expected)
    }

    @Test func incrementalUpdatesSplitAnywhereGiveTheSameDigest() {
        let message = [UInt8](LoopbackBodyPattern.data(count: 200))
        let whole = SHA256.hash(message)

        for first in 0...message.count {
            for second in Swift.stride(from: first, through: message.count, by: 37) {
                var hasher = SHA256()
                hasher.update(message[0..<first])
                hasher.update(message[first..<second])
                hasher.update(message[second...])
                #expect(hasher.finalize() == whole, "split at \(first), \(second)")
            }
        }
    }

    @Test func finalizeLeavesTheHashUsable() {
        var hasher = SHA256()
        hasher.update(Array("ab".utf8))
        let partial = hasher.finalize()
        hasher.update(Array("c".utf8))

        #expect(SHA256.hex(partial) == "fb8e20fc2e4c3f248c60c39bd652f3c1347298bb977b8b4d5903b85055620603")
        #expect(SHA256.hex(hasher.finalize()) == Self.hex("abc"))
    }

    @Test func hashesStraightFromDataAndRawBuffers() {
        let data = LoopbackBodyPattern.data(count: 1 << 20)
        var hasher = SHA256()
        data.withUnsafeBytes { hasher.update(buffer: $0) }

        let expected = "631b84027d6b9e52b539c4e8373622d23032dfadc64d60af87339c9037e4f769"
        #expect(SHA256.hex(hasher.finalize()) == expected)
        #expect(SHA256.hex(SHA256.hash(data)) == expected)
    }
}
