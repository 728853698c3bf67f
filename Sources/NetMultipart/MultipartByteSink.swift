#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Destination for framing bytes.
///
/// The framing is written through this protocol both into the real body and into a
/// ``MultipartByteCounter``, so the precomputed length cannot drift from the bytes that
/// are actually produced: there is only one code path that decides what gets written.
protocol MultipartByteSink {
    mutating func write(_ byte: UInt8)
    mutating func write(_ bytes: some Collection<UInt8>)
}

extension MultipartByteSink {
    /// Writes `value` as the content of an RFC 2183 `quoted-string`.
    ///
    /// The value goes out as raw UTF-8 (RFC 7578 §4.2 permits it, and it is what servers
    /// expect from browsers); only `"` and `\` need a backslash so the string keeps its
    /// closing quote. CR, LF and NUL must have been rejected before, because no escaping
    /// makes them safe for every parser.
    mutating func writeQuotedStringContent(_ value: String) {
        for byte in value.utf8 {
            if byte == ASCII.quote || byte == ASCII.backslash {
                write(ASCII.backslash)
            }
            write(byte)
        }
    }
}

extension Data: MultipartByteSink {
    mutating func write(_ byte: UInt8) {
        append(byte)
    }

    mutating func write(_ bytes: some Collection<UInt8>) {
        append(contentsOf: bytes)
    }
}
