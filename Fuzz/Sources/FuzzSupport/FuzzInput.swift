#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The bytes libFuzzer hands a harness, read front to back: a few bytes pick the parameters (chunk sizes, limits),
/// the rest is the payload. Reading past the end yields zeros and empty strings, so every input is usable.
public struct FuzzInput {
    /// The bytes not read yet.
    public private(set) var rest: ArraySlice<UInt8>

    /// The input at `data`, `size` bytes long (libFuzzer passes a null pointer for an empty input).
    public init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        if let data, size > 0 {
            rest = ArraySlice(UnsafeBufferPointer(start: data, count: size))
        } else {
            rest = []
        }
    }

    /// The next byte, or 0 at the end.
    public mutating func byte() -> UInt8 {
        rest.popFirst() ?? 0
    }

    /// The bytes up to the next `separator` (which is consumed), or all that is left.
    public mutating func field(separator: UInt8 = 0) -> ArraySlice<UInt8> {
        guard let end = rest.firstIndex(of: separator) else {
            defer { rest = [] }
            return rest
        }
        defer { rest = rest[(end + 1)...] }
        return rest[..<end]
    }

    /// `field(separator:)` decoded as UTF-8 (bad bytes become U+FFFD).
    public mutating func string(separator: UInt8 = 0) -> String {
        String(decoding: field(separator: separator), as: UTF8.self)
    }

    /// Everything left.
    public mutating func remainder() -> [UInt8] {
        defer { rest = [] }
        return Array(rest)
    }
}

/// `bytes` cut into chunks whose sizes cycle through `sizes` (each at least 1 byte).
public func chunks(of bytes: [UInt8], sizes: [Int]) -> [Data] {
    var result: [Data] = []
    var start = 0
    var turn = 0
    while start < bytes.count {
        let size = max(1, sizes.isEmpty ? bytes.count : sizes[turn % sizes.count])
        let end = min(bytes.count, start + size)
        result.append(Data(bytes[start..<end]))
        start = end
        turn += 1
    }
    return result
}

/// Stops the process, which libFuzzer reports as a crash with the input that caused it, when `condition` is false.
public func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fatalError("fuzz invariant broken: \(message())")
    }
}
