/// FNV-1a, 64-bit: a checksum both ends of the upload test compute, so the server can report what it received
/// without echoing a megabyte back. Not a cryptographic hash; it only has to notice a lost, doubled or moved byte.
package struct FNV1a: Sendable {
    private static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01b3

    /// The hash of everything added so far.
    package private(set) var value = FNV1a.offsetBasis

    /// An empty hash.
    package init() {}

    /// Adds `bytes` in order.
    package mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value = (value ^ UInt64(byte)) &* Self.prime
        }
    }

    /// The value as 16 lowercase hexadecimal digits.
    package var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The hash of `bytes`, in hexadecimal.
    package static func hex(of bytes: some Sequence<UInt8>) -> String {
        var hash = FNV1a()
        hash.add(bytes)
        return hash.hex
    }
}
