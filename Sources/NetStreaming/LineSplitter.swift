import Foundation
import NetCore

/// Splits a byte stream into lines as chunks arrive: the pure core of ``LineSequence`` and ``NDJSONSequence``.
///
/// A plain value with no I/O, so every framing rule is tested without a network. It scans whole chunks with
/// `memchr`, never one byte per async step, and decodes a line straight from the chunk's bytes when the line
/// lies within one chunk; only a line that straddles chunks is copied (into one reused buffer).
///
/// Rules:
/// - A line ends at LF; a CR right before the LF is part of the line break (CRLF). A CR anywhere else is
///   text, and so is a lone CR. A CR at the end of a chunk followed by LF at the start of the next is one
///   CRLF.
/// - After ``finish()``, the bytes after the last LF form the last line (a trailing CR is dropped from it).
/// - A line is decoded as UTF-8 once it is whole, so a multi-byte character split across chunks comes out
///   intact. Bytes that are not valid UTF-8 become U+FFFD REPLACEMENT CHARACTER (`String(decoding:as:)`);
///   they never fail the stream. Use ``nextLineData()`` to see the exact bytes.
/// - Empty lines are returned; the views above decide whether to skip them.
/// - Memory is bounded: a line longer than ``maximumLineLength`` bytes (not counting its line break)
///   throws ``StreamingError/lineTooLong(limitBytes:)`` as soon as that is certain, and then every later call
///   throws the same error.
///
/// ```swift
/// var splitter = LineSplitter()
/// for try await chunk in body {
///     splitter.push(chunk)
///     while let line = try splitter.nextLine() { print(line) }
/// }
/// splitter.finish()
/// while let line = try splitter.nextLine() { print(line) }
/// ```
public struct LineSplitter: Sendable {
    /// The longest line the views accept unless told otherwise: 1 MiB.
    public static let defaultMaximumLineLength = 1 << 20

    /// The longest line accepted, in bytes, not counting its line break.
    public let maximumLineLength: Int

    /// The chunk being read; its bytes before `offset` are consumed.
    private var chunk = Data()
    private var offset = 0
    /// The beginning of a line that started in an earlier chunk (at most `maximumLineLength + 1` bytes).
    private var carried: [UInt8] = []
    private var inputEnded = false
    private var failure: StreamingError?

    /// Creates a splitter that accepts lines of up to `maximumLineLength` bytes.
    public init(maximumLineLength: Int = LineSplitter.defaultMaximumLineLength) {
        precondition(maximumLineLength >= 0, "maximumLineLength must not be negative")
        self.maximumLineLength = maximumLineLength
    }

    /// Hands the splitter the next chunk of the stream.
    ///
    /// Read the lines it completes with ``nextLine()`` (or ``nextLineData()``) until `nil` before pushing
    /// the next one: a chunk pushed while lines are still unread is joined to them, which costs a copy.
    /// - Precondition: ``finish()`` has not been called.
    public mutating func push(_ newChunk: Data) {
        precondition(!inputEnded, "LineSplitter.push(_:) after finish()")
        guard !newChunk.isEmpty else { return }
        if offset < chunk.count {
            var joined = Data(chunk[(chunk.startIndex + offset)...])
            joined.append(newChunk)
            chunk = joined
        } else {
            chunk = newChunk
        }
        offset = 0
    }

    /// Marks the end of the stream: the bytes after the last line break become the last line.
    public mutating func finish() {
        inputEnded = true
    }

    /// The next complete line, decoded as UTF-8 (invalid bytes become U+FFFD), or `nil` when the splitter
    /// needs another chunk (or, after ``finish()``, has no more lines).
    /// - Throws: ``StreamingError/lineTooLong(limitBytes:)``.
    public mutating func nextLine() throws(StreamingError) -> String? {
        switch try locateLine() {
        case .none:
            return nil
        case .inChunk(let range):
            return chunk.withUnsafeBytes { raw in
                raw.withMemoryRebound(to: UInt8.self) { bytes in
                    String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
                }
            }
        case .carried:
            defer { carried.removeAll(keepingCapacity: true) }
            return String(decoding: carried, as: UTF8.self)
        }
    }

    /// The next complete line's bytes, without its line break, or `nil` like ``nextLine()``.
    ///
    /// A line within one chunk is a slice of that chunk (no copy; its `startIndex` need not be 0), which is
    /// what `JSONDecoder` reads NDJSON records from.
    /// - Throws: ``StreamingError/lineTooLong(limitBytes:)``.
    public mutating func nextLineData() throws(StreamingError) -> Data? {
        switch try locateLine() {
        case .none:
            return nil
        case .inChunk(let range):
            return chunk[(chunk.startIndex + range.lowerBound)..<(chunk.startIndex + range.upperBound)]
        case .carried:
            defer { carried.removeAll(keepingCapacity: true) }
            return Data(carried)
        }
    }

    /// Where the next line is: a range of the current chunk (offsets from its start), the `carried`
    /// buffer, or nowhere yet.
    private enum Location {
        case none
        case inChunk(Range<Int>)
        case carried
    }

    private mutating func locateLine() throws(StreamingError) -> Location {
        if let failure { throw failure }
        let chunk = self.chunk
        let count = chunk.count
        if offset < count {
            let start = offset
            let newline: Int? = chunk.withUnsafeBytes { raw in
                guard let base = raw.baseAddress, let hit = memchr(base + start, 0x0A, count - start) else { return nil }
                return base.distance(to: UnsafeRawPointer(hit))
            }
            if let newline {
                offset = newline + 1
                guard carried.isEmpty else {
                    append(start..<newline)
                    return try closeCarriedLine()
                }
                var end = newline
                if end > start, Self.byte(of: chunk, at: end - 1) == Self.carriageReturn { end -= 1 }
                guard end - start <= maximumLineLength else { throw fail() }
                return .inChunk(start..<end)
            }
            // No line break in the rest of the chunk: carry it, unless it is certainly too long already
            // (one extra byte is allowed when it is a CR, which may turn out to be half of a CRLF).
            let length = carried.count + (count - start)
            if length > maximumLineLength + 1
                || (length == maximumLineLength + 1 && Self.byte(of: chunk, at: count - 1) != Self.carriageReturn) {
                throw fail()
            }
            append(start..<count)
            offset = count
        }
        guard inputEnded, !carried.isEmpty else { return .none }
        return try closeCarriedLine()
    }

    private mutating func closeCarriedLine() throws(StreamingError) -> Location {
        if carried.last == Self.carriageReturn { carried.removeLast() }
        guard carried.count <= maximumLineLength else { throw fail() }
        return .carried
    }

    private mutating func append(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        chunk.withUnsafeBytes { raw in
            carried.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[range]))
        }
    }

    private mutating func fail() -> StreamingError {
        let error = StreamingError.lineTooLong(limitBytes: maximumLineLength)
        failure = error
        carried = []
        chunk = Data()
        offset = 0
        return error
    }

    private static let carriageReturn = UInt8(ascii: "\r")

    private static func byte(of data: Data, at offset: Int) -> UInt8 {
        data[data.startIndex + offset]
    }
}
