import Foundation

/// The deterministic byte sequence of generated bodies (``LoopbackBodyWriter/writePattern(byteCount:)``,
/// ``LoopbackResponse/patterned(byteCount:status:headers:chunked:)``), so a client can check any
/// slice of a huge body without the server ever building it.
///
/// The byte at body offset `i` is `i % 251`. The period is prime, so it never lines up with
/// power-of-two buffer or chunk sizes, and a lost, doubled or reordered piece changes what follows.
package enum LoopbackBodyPattern: Sendable {
    /// Length of one repetition.
    package static let period = 251

    /// The byte at `offset` in a generated body.
    package static func byte(at offset: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: offset % period)
    }

    /// `count` bytes of a generated body starting at `offset`, for expectations in tests.
    package static func data(offset: Int = 0, count: Int) -> Data {
        Data((0..<max(count, 0)).map { byte(at: offset + $0) })
    }

    /// Bytes written per piece by the writer: a whole number of periods, about 250 KiB.
    static let pieceSize = period * 1024

    /// One piece plus one extra period, so a piece starting at any phase is a plain slice of it.
    static let block: [UInt8] = (0..<(pieceSize + period)).map { byte(at: $0) }
}
