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

/// Parses a `text/event-stream` into ``ServerSentEvent``s as chunks arrive, following the WHATWG HTML
/// standard ("Parsing an event stream", "Interpreting an event stream"): the pure core of
/// ``ServerSentEventSequence`` and of a reconnecting event source.
///
/// A plain value with no I/O. Each chunk is copied once into one reused buffer, which is scanned in place,
/// never one byte per async step.
///
/// What it does, rule by rule:
/// - Lines end at CRLF, LF or CR, also when a CR ends one chunk and its LF opens the next (one line end).
/// - A UTF-8 byte order mark at the very start of the stream is dropped, once, even if split across chunks.
/// - A blank line dispatches the block read so far; a block whose data buffer is empty (it had no `data`
///   field) is not dispatched, but its `id` still becomes ``lastEventID``.
/// - A line starting with `:` is a comment. A line without `:` is a field name with an empty value. One
///   space after the colon is removed; any other is kept.
/// - `event` sets the type (`"message"` when empty or absent); `data` appends its value and a line feed to
///   the data buffer (the final line feed is removed at dispatch); `id` sets the last event ID unless the
///   value contains NUL (then the field is ignored); `retry` sets the reconnection time in milliseconds if
///   the value is one or more ASCII digits (a value too large for `Int` saturates), and is ignored
///   otherwise; other fields are ignored.
/// - At the end of the stream (after ``finish()``), a block without its closing blank line is discarded,
///   as the standard says; so is a last line without a line end.
/// - Text is UTF-8; invalid bytes become U+FFFD REPLACEMENT CHARACTER, as the standard's decoder does.
/// - Memory is bounded: a line longer than ``maximumEventSize`` bytes (not counting its line end), or an
///   event whose data (the data lines joined) would grow past it, throws
///   `StreamingError.lineTooLong(limitBytes:)`, and every later call throws the same error.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for try await chunk in body {
///     parser.push(chunk)
///     while let event = try parser.nextEvent() { handle(event) }
/// }
/// // Reconnect with `Last-Event-ID: parser.lastEventID` after `parser.reconnectionTime`.
/// ```
@usableFromInline package struct ServerSentEventParser: Sendable {
    /// The largest line or event data the views accept unless told otherwise: 1 MiB.
    @usableFromInline package static let defaultMaximumEventSize = 1 << 20

    /// The longest line, and the largest event data, accepted, in bytes.
    @usableFromInline package let maximumEventSize: Int
    /// The stream's last event ID string: the value of the last `id` field of a block closed by a blank
    /// line, dispatched or not (`nil` while none; `""` after an empty `id` field).
    ///
    /// A reconnecting client sends it as `Last-Event-ID`. An `id` in a block the stream never closed does
    /// not count, as in a browser.
    @usableFromInline package private(set) var lastEventID: String?
    /// The reconnection time most recently set by a valid `retry` field, in any block, `nil` while none.
    @usableFromInline package private(set) var reconnectionTime: Duration?

    /// The bytes received and not yet read start at `offset`: complete lines, then the beginning of the next
    /// one (at most `maximumEventSize` bytes).
    private var buffer: [UInt8] = []
    private var offset = 0
    /// Bytes before this index are known to hold no line end after `offset`, so a long line is scanned once.
    private var scanned = 0
    /// Where the next LF and the next CR at or after the scan position are in `buffer` (`buffer.count`: none),
    /// found with `memchr` and kept until passed; -1: not searched since the buffer changed.
    private var nextLineFeed = -1
    private var nextCarriageReturn = -1
    /// The last line ended with a CR that closed the buffer; an LF opening the next chunk belongs to it.
    private var skipsLeadingLineFeed = false
    /// The stream's first bytes, held until they rule a byte order mark in or out; `nil` once decided.
    private var streamStart: [UInt8]? = []
    private var inputEnded = false
    private var failure: StreamingError?

    /// The event the last blank line dispatched, until ``nextEvent()`` hands it out.
    private var dispatched: ServerSentEvent?

    // The block being read.
    private var idBuffer: String?
    private var eventType = ""
    /// The last event type decoded: streams repeat a few types, so most `event` fields reuse it.
    private var lastDecodedEventType = ""
    /// How many `data` lines the block had, and the size of their values joined with LF, in bytes.
    private var dataLines = 0
    private var dataSize = 0
    /// The block's data while it has one line (the common case), decoded straight from the line.
    private var singleData = ""
    /// The block's data lines joined with LF, once it has more than one.
    private var joinedData: [UInt8] = []
    private var blockRetry: Duration?

    /// Creates a parser.
    /// - Parameters:
    ///   - maximumEventSize: the longest line and the largest event data accepted, in bytes.
    ///   - lastEventID: the last event ID a previous connection ended with, so that events of this one
    ///     carry it until the stream sets another.
    @usableFromInline package init(
        maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize, lastEventID: String? = nil
    ) {
        precondition(maximumEventSize >= 0, "maximumEventSize must not be negative")
        self.maximumEventSize = maximumEventSize
        self.lastEventID = lastEventID
        self.idBuffer = lastEventID
    }

    /// Hands the parser the next chunk of the stream.
    ///
    /// Read the events it completes with ``nextEvent()`` until `nil` before pushing the next one, so that the
    /// buffer holds one chunk and one partial line at most; events left unread are kept, though, and come out
    /// in order.
    /// - Precondition: ``finish()`` has not been called.
    @usableFromInline package mutating func push(_ newChunk: Data) {
        precondition(!inputEnded, "ServerSentEventParser.push(_:) after finish()")
        var incoming = newChunk
        if var head = streamStart {
            // Decide about a byte order mark before anything else is read.
            let taken = min(Self.byteOrderMark.count - head.count, incoming.count)
            head.append(contentsOf: incoming.prefix(taken))
            if head == Self.byteOrderMark {
                streamStart = nil
                incoming = incoming.dropFirst(taken)
            } else if Self.byteOrderMark.starts(with: head) {
                streamStart = head
                return
            } else {
                streamStart = nil
                var joined = Data(head)
                joined.append(incoming.dropFirst(taken))
                incoming = joined
            }
        }
        guard !incoming.isEmpty, failure == nil else { return }
        if offset == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            scanned = 0
        } else if offset > 0 {
            buffer.removeSubrange(0..<offset)
            scanned -= offset
        }
        offset = 0
        nextLineFeed = -1
        nextCarriageReturn = -1
        incoming.withUnsafeBytes { raw in
            raw.withMemoryRebound(to: UInt8.self) { buffer.append(contentsOf: $0) }
        }
    }

    /// Marks the end of the stream: an unfinished block will be discarded once the complete ones are read.
    @usableFromInline package mutating func finish() {
        inputEnded = true
    }

    /// The next dispatched event, or `nil` when the parser needs another chunk (or, after ``finish()``, has
    /// no more events).
    /// - Throws: `StreamingError.lineTooLong(limitBytes:)`.
    @usableFromInline package mutating func nextEvent() throws(StreamingError) -> ServerSentEvent? {
        if let failure { throw failure }
        // Scan the buffer in place while the line handlers change the rest of the parser.
        var bytes: [UInt8] = []
        swap(&bytes, &buffer)
        let outcome = bytes.withUnsafeBufferPointer { scan($0) }
        swap(&bytes, &buffer)
        switch outcome {
        case .dispatched:
            return dispatched.take()
        case .failed(let error):
            failure = error
            buffer = []
            offset = 0
            scanned = 0
            joinedData = []
            singleData = ""
            throw error
        case .needsMore:
            if inputEnded { discardPendingInput() }
            return nil
        }
    }

    private enum ScanOutcome {
        /// An event is in `dispatched`.
        case dispatched
        case needsMore
        case failed(StreamingError)
    }

    /// Reads lines of `bytes` (the buffer) from `offset` until one dispatches an event.
    private mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> ScanOutcome {
        let count = bytes.count
        var position = offset
        defer { offset = position }
        if skipsLeadingLineFeed, position < count {
            if bytes[position] == Self.lineFeed { position += 1 }
            skipsLeadingLineFeed = false
        }
        while position < count {
            let lineStart = position
            let searchFrom = max(position, scanned)
            if nextLineFeed < searchFrom { nextLineFeed = Self.find(Self.lineFeed, in: bytes, from: searchFrom) }
            if nextCarriageReturn < searchFrom {
                nextCarriageReturn = Self.find(Self.carriageReturn, in: bytes, from: searchFrom)
            }
            let lineEnd = min(nextLineFeed, nextCarriageReturn)
            guard lineEnd - lineStart <= maximumEventSize else {
                return .failed(.lineTooLong(limitBytes: maximumEventSize))
            }
            // No line end yet: keep the beginning of the line for the next chunk.
            guard lineEnd < count else {
                scanned = count
                return .needsMore
            }
            position = lineEnd + 1
            if bytes[lineEnd] == Self.carriageReturn {
                if position < count {
                    if bytes[position] == Self.lineFeed { position += 1 }
                } else {
                    skipsLeadingLineFeed = true
                }
            }
            do {
                if try interpret(UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd])) { return .dispatched }
            } catch {
                return .failed(error)
            }
        }
        return .needsMore
    }

    /// Applies one line (without its line end) to the block; true when a blank line dispatched an event.
    @inline(__always)
    private mutating func interpret(_ line: UnsafeBufferPointer<UInt8>) throws(StreamingError) -> Bool {
        guard let first = line.first else { return dispatch() }
        if first == Self.colon { return false }
        let name: UnsafeBufferPointer<UInt8>
        let value: UnsafeBufferPointer<UInt8>
        if let colon = line.firstIndex(of: Self.colon) {
            name = UnsafeBufferPointer(rebasing: line[..<colon])
            let valueStart = colon + 1 < line.count && line[colon + 1] == Self.space ? colon + 2 : colon + 1
            value = UnsafeBufferPointer(rebasing: line[valueStart...])
        } else {
            name = line
            value = UnsafeBufferPointer(rebasing: line[line.count...])
        }
        switch Field(name) {
        case .data:
            let size = dataLines == 0 ? value.count : dataSize + 1 + value.count
            guard size <= maximumEventSize else { throw .lineTooLong(limitBytes: maximumEventSize) }
            switch dataLines {
            case 0:
                singleData = String(decoding: value, as: UTF8.self)
            case 1:
                // Decoding line by line and then the joined bytes gives the same text: the line feed between
                // them cannot be part of a UTF-8 sequence.
                joinedData.removeAll(keepingCapacity: true)
                joinedData.append(contentsOf: singleData.utf8)
                joinedData.append(Self.lineFeed)
                joinedData.append(contentsOf: value)
            default:
                joinedData.append(Self.lineFeed)
                joinedData.append(contentsOf: value)
            }
            dataLines += 1
            dataSize = size
        case .event:
            let same = lastDecodedEventType.utf8.withContiguousStorageIfAvailable { known in
                known.count == value.count
                    && (value.isEmpty || memcmp(known.baseAddress!, value.baseAddress!, value.count) == 0)
            }
            if same != true { lastDecodedEventType = String(decoding: value, as: UTF8.self) }
            eventType = lastDecodedEventType
        case .id:
            if !value.contains(0) { idBuffer = String(decoding: value, as: UTF8.self) }
        case .retry:
            if let milliseconds = Self.milliseconds(value) {
                let retry = Duration.milliseconds(milliseconds)
                reconnectionTime = retry
                blockRetry = retry
            }
        case .other:
            break
        }
        return false
    }

    /// Closes the block at a blank line: puts its event in `dispatched` unless its data buffer is empty.
    @inline(__always)
    private mutating func dispatch() -> Bool {
        lastEventID = idBuffer
        guard dataLines > 0 else {
            resetBlock()
            return false
        }
        var data = ""
        if dataLines == 1 {
            swap(&data, &singleData)
        } else {
            data = String(decoding: joinedData, as: UTF8.self)
        }
        dispatched = ServerSentEvent(
            id: idBuffer, event: eventType.isEmpty ? "message" : eventType, data: data, retry: blockRetry)
        resetBlock()
        return true
    }

    private mutating func resetBlock() {
        dataLines = 0
        dataSize = 0
        singleData = ""
        eventType = ""
        blockRetry = nil
    }

    /// The end of the stream: whatever is not a complete block is dropped.
    private mutating func discardPendingInput() {
        buffer = []
        offset = 0
        scanned = 0
        streamStart = nil
        joinedData = []
        resetBlock()
        idBuffer = lastEventID
    }

    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")
    private static let colon = UInt8(ascii: ":")
    private static let space = UInt8(ascii: " ")
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// The offset of the first `byte` in `bytes` at or after `start`, or `bytes.count` if there is none.
    private static func find(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard start < bytes.count, let base = bytes.baseAddress,
            let hit = memchr(base + start, Int32(byte), bytes.count - start)
        else { return bytes.count }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
    }

    /// The field names the standard defines, matched on the exact bytes (names are case-sensitive).
    private enum Field {
        case data, event, id, retry, other

        init(_ name: UnsafeBufferPointer<UInt8>) {
            func matches(_ literal: StaticString) -> Bool {
                memcmp(name.baseAddress!, literal.utf8Start, name.count) == 0
            }
            switch name.count {
            case 4 where matches("data"): self = .data
            case 5 where matches("event"): self = .event
            case 2 where matches("id"): self = .id
            case 5 where matches("retry"): self = .retry
            default: self = .other
            }
        }
    }

    /// The value of a `retry` field: one or more ASCII digits, base ten, saturating at `Int.max`.
    private static func milliseconds(_ digits: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !digits.isEmpty else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (shifted, overflowShift) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = shifted.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            value = overflowShift || overflowSum ? Int.max : sum
        }
        return value
    }
}

extension ServerSentEventParser: ChunkParser {}
