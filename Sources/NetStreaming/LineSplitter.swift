import Foundation

/// Splits a byte stream into lines as chunks arrive: the pure core of line, NDJSON and SSE parsing.
///
/// Lines end at LF; a CR before the LF is removed. Bytes of a line split across chunks (even inside a
/// multi-byte UTF-8 character) are joined before decoding. The splitter scans whole buffers, never one byte
/// per async step.
///
/// ```swift
/// var splitter = LineSplitter()
/// for try await chunk in body { for line in splitter.append(chunk) { print(line) } }
/// if let last = splitter.finish() { print(last) }
/// ```
public struct LineSplitter: Sendable {
    private var pending = Data()
    /// The longest line accepted, in bytes; a longer one throws ``LineTooLong``.
    public let maximumLineLength: Int

    /// A line longer than ``LineSplitter/maximumLineLength``.
    public struct LineTooLong: Error, Equatable {
        /// The limit that was exceeded.
        public let limit: Int

        /// Creates the error for `limit`.
        public init(limit: Int) {
            self.limit = limit
        }
    }

    /// Creates a splitter that accepts lines of up to `maximumLineLength` bytes (1 MiB by default).
    public init(maximumLineLength: Int = 1 << 20) {
        self.maximumLineLength = maximumLineLength
    }

    /// Appends a chunk and returns the lines it completes.
    public mutating func append(_ chunk: Data) throws(LineTooLong) -> [String] {
        var lines: [String] = []
        var start = chunk.startIndex
        while let newline = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) {
            let piece = chunk[start..<newline]
            guard pending.count + piece.count <= maximumLineLength else { throw LineTooLong(limit: maximumLineLength) }
            if pending.isEmpty {
                lines.append(Self.decode(piece))
            } else {
                pending.append(piece)
                lines.append(Self.decode(pending))
                pending.removeAll(keepingCapacity: true)
            }
            start = chunk.index(after: newline)
        }
        let rest = chunk[start...]
        guard pending.count + rest.count <= maximumLineLength else { throw LineTooLong(limit: maximumLineLength) }
        pending.append(rest)
        return lines
    }

    /// Returns the last line when the stream ended without a final line break.
    public mutating func finish() -> String? {
        guard !pending.isEmpty else { return nil }
        defer { pending.removeAll() }
        return Self.decode(pending)
    }

    private static func decode(_ bytes: Data) -> String {
        let trimmed = bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes[...]
        return String(decoding: trimmed, as: UTF8.self)
    }
}
