#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NetCore

/// Splits a byte stream into lines as chunks arrive: the pure core of ``LineSequence`` and ``NDJSONSequence``.
///
/// A plain value with no I/O, so every framing rule is tested without a network. Each chunk is copied once
/// into one reused buffer (a `memcpy`; reading a `Data` per line costs more), which is then scanned with
/// `memchr`, never one byte per async step; a line is decoded straight from that buffer.
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
///   throws `StreamingError.lineTooLong(limitBytes:)` as soon as that is certain, and then every later call
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
@usableFromInline package struct LineSplitter: Sendable {
    /// The longest line the views accept unless told otherwise: 1 MiB.
    @usableFromInline package static let defaultMaximumLineLength = 1 << 20

    /// The longest line accepted, in bytes, not counting its line break.
    @usableFromInline package let maximumLineLength: Int

    /// The bytes received and not yet returned start at `offset`: whole lines, then the beginning of the next
    /// one (at most `maximumLineLength + 1` bytes).
    private var buffer: [UInt8] = []
    private var offset = 0
    /// Bytes before this index are known to hold no LF after `offset`, so a long line is scanned once.
    private var scanned = 0
    private var inputEnded = false
    private var failure: StreamingError?

    /// Creates a splitter that accepts lines of up to `maximumLineLength` bytes.
    @usableFromInline package init(maximumLineLength: Int = LineSplitter.defaultMaximumLineLength) {
        precondition(maximumLineLength >= 0, "maximumLineLength must not be negative")
        self.maximumLineLength = maximumLineLength
    }

    /// Hands the splitter the next chunk of the stream.
    ///
    /// Read the lines it completes with ``nextLine()`` (or ``nextLineData()``) until `nil` before pushing
    /// the next one, so that the buffer holds one chunk and one partial line at most; lines left unread are
    /// kept, though, and come out in order.
    /// - Precondition: ``finish()`` has not been called.
    @usableFromInline package mutating func push(_ chunk: Data) {
        precondition(!inputEnded, "LineSplitter.push(_:) after finish()")
        guard !chunk.isEmpty, failure == nil else { return }
        if offset == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            scanned = 0
        } else if offset > 0 {
            buffer.removeSubrange(0..<offset)
            scanned -= offset
        }
        offset = 0
        chunk.withUnsafeBytes { raw in
            raw.withMemoryRebound(to: UInt8.self) { buffer.append(contentsOf: $0) }
        }
    }

    /// Marks the end of the stream: the bytes after the last line break become the last line.
    @usableFromInline package mutating func finish() {
        inputEnded = true
    }

    /// The next complete line, decoded as UTF-8 (invalid bytes become U+FFFD), or `nil` when the splitter
    /// needs another chunk (or, after ``finish()``, has no more lines).
    /// - Throws: `StreamingError.lineTooLong(limitBytes:)`.
    @usableFromInline package mutating func nextLine() throws(StreamingError) -> String? {
        try next { String(decoding: $0, as: UTF8.self) }
    }

    /// The next complete line's bytes, without its line break, or `nil` like ``nextLine()``; what
    /// `JSONDecoder` reads NDJSON records from.
    /// - Throws: `StreamingError.lineTooLong(limitBytes:)`.
    @usableFromInline package mutating func nextLineData() throws(StreamingError) -> Data? {
        try next { Data($0) }
    }

    private enum Scan<Line> {
        case line(Line, next: Int)
        case needsMore
        case tooLong
    }

    /// Finds the next line and hands its bytes (without the line break) to `make`.
    private mutating func next<Line>(_ make: (UnsafeBufferPointer<UInt8>) -> Line) throws(StreamingError) -> Line? {
        if let failure { throw failure }
        let start = offset
        let count = buffer.count
        guard start < count else { return nil }
        let searchFrom = max(scanned, start)
        let limit = maximumLineLength
        let ended = inputEnded
        let scan = buffer.withUnsafeBufferPointer { bytes -> Scan<Line> in
            let base = bytes.baseAddress!
            let lineFeed = searchFrom < count ? memchr(base + searchFrom, 0x0A, count - searchFrom) : nil
            guard lineFeed != nil || ended else {
                // No line break yet: wait for more, unless the line is certainly too long already (one extra
                // byte is allowed when it is a CR, which may turn out to be half of a CRLF).
                let pending = count - start
                if pending > limit + 1 || (pending == limit + 1 && bytes[count - 1] != Self.carriageReturn) {
                    return .tooLong
                }
                return .needsMore
            }
            let lineEnd = lineFeed.map { UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0)) } ?? count
            var end = lineEnd
            if end > start, bytes[end - 1] == Self.carriageReturn { end -= 1 }
            guard end - start <= limit else { return .tooLong }
            return .line(make(UnsafeBufferPointer(rebasing: bytes[start..<end])), next: min(lineEnd + 1, count))
        }
        switch scan {
        case .line(let line, let next):
            offset = next
            return line
        case .needsMore:
            scanned = count
            return nil
        case .tooLong:
            let error = StreamingError.lineTooLong(limitBytes: maximumLineLength)
            failure = error
            buffer = []
            offset = 0
            scanned = 0
            throw error
        }
    }

    private static let carriageReturn = UInt8(ascii: "\r")
}

extension LineSplitter: ChunkParser {}
