#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds the delimiter `CRLF--boundary` in a part's data, fed in one piece or in chunks.
///
/// It is incremental so that a future file-streaming encoder can check each chunk as it
/// reads it, in bounded memory, with the same rule the in-memory encoder applies.
///
/// The matcher is a tiny KMP automaton. Because a valid boundary contains no CR, the
/// pattern's only CR is its first byte, so after a mismatch the longest partial match is
/// either "just saw CR" or nothing; no failure table is needed.
struct MultipartDelimiterScanner: Sendable {
    private let pattern: [UInt8]
    private var matched: Int
    /// Whether the delimiter has been seen in the bytes scanned so far.
    private(set) var found = false

    /// Starts in the "just saw CRLF" state because every part's data follows the blank
    /// line that ends its headers, so data beginning with `--boundary` already completes
    /// a delimiter. The data's end needs no look-ahead: the pattern cannot overlap itself,
    /// so the `CRLF--boundary` that follows the data is never fooled into matching early.
    init(boundary: String) {
        pattern = Array("\r\n--\(boundary)".utf8)
        matched = 2
    }

    /// Scans the next chunk of the part's data and returns ``found``.
    @discardableResult
    mutating func scan(_ data: Data) -> Bool {
        data.withUnsafeBytes { scan($0) }
    }

    /// Scans the next chunk of the part's data and returns ``found``.
    ///
    /// Between candidates it jumps with `memchr` to the next CR, the only byte that can start
    /// the delimiter, so data without CRs is scanned at memory speed rather than byte by byte.
    @discardableResult
    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !found else { return true }
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        var matched = self.matched
        var index = 0
        let hit: Bool = pattern.withUnsafeBufferPointer { pattern in
            while index < count {
                if matched == 0 {
                    guard let carriageReturn = memchr(base + index, Int32(ASCII.carriageReturn), count - index) else {
                        return false
                    }
                    index = base.distance(to: UnsafeRawPointer(carriageReturn)) + 1
                    matched = 1
                    continue
                }
                let byte = bytes[index]
                index += 1
                if byte == pattern[matched] {
                    matched += 1
                    if matched == pattern.count { return true }
                } else {
                    matched = byte == ASCII.carriageReturn ? 1 : 0
                }
            }
            return false
        }
        if hit {
            found = true
            return true
        }
        // memchr found no CR in the rest: whatever partial match there was is gone.
        self.matched = index < count ? 0 : matched
        return false
    }
}
