import Foundation
import NetCore

/// Parses a `text/event-stream` into ``ServerSentEvent``s as chunks arrive, following the WHATWG HTML
/// standard ("Parsing an event stream", "Interpreting an event stream"): the pure core of
/// ``ServerSentEventSequence`` and of a reconnecting event source.
///
/// A plain value with no I/O. It scans whole chunks, never one byte per async step.
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
///   ``StreamingError/lineTooLong(limitBytes:)``, and every later call throws the same error.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for try await chunk in body {
///     parser.push(chunk)
///     while let event = try parser.nextEvent() { handle(event) }
/// }
/// // Reconnect with `Last-Event-ID: parser.lastEventID` after `parser.reconnectionTime`.
/// ```
public struct ServerSentEventParser: Sendable {
    /// The largest line or event data the views accept unless told otherwise: 1 MiB.
    public static let defaultMaximumEventSize = 1 << 20

    /// The longest line, and the largest event data, accepted, in bytes.
    public let maximumEventSize: Int
    /// The stream's last event ID string: the value of the last `id` field of a block closed by a blank
    /// line, dispatched or not (`nil` while none; `""` after an empty `id` field).
    ///
    /// A reconnecting client sends it as `Last-Event-ID`. An `id` in a block the stream never closed does
    /// not count, as in a browser.
    public private(set) var lastEventID: String?
    /// The reconnection time most recently set by a valid `retry` field, in any block, `nil` while none.
    public private(set) var reconnectionTime: Duration?

    private var chunk = Data()
    private var offset = 0
    /// The beginning of a line that started in an earlier chunk.
    private var carried: [UInt8] = []
    /// The last line ended with a CR that closed a chunk; an LF opening the next chunk belongs to it.
    private var skipsLeadingLineFeed = false
    /// The stream's first bytes, held until they rule a byte order mark in or out; `nil` once decided.
    private var streamStart: [UInt8]? = []
    private var inputEnded = false
    private var failure: StreamingError?

    // The block being read.
    private var idBuffer: String?
    private var eventType = ""
    private var dataBuffer: [UInt8] = []
    private var hasData = false
    private var blockRetry: Duration?

    /// Creates a parser.
    /// - Parameters:
    ///   - maximumEventSize: the longest line and the largest event data accepted, in bytes.
    ///   - lastEventID: the last event ID a previous connection ended with, so that events of this one
    ///     carry it until the stream sets another.
    public init(maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize, lastEventID: String? = nil) {
        precondition(maximumEventSize >= 0, "maximumEventSize must not be negative")
        self.maximumEventSize = maximumEventSize
        self.lastEventID = lastEventID
        self.idBuffer = lastEventID
    }

    /// Hands the parser the next chunk of the stream.
    ///
    /// Read the events it completes with ``nextEvent()`` until `nil` before pushing the next one: a chunk
    /// pushed while bytes are still unread is joined to them, which costs a copy.
    /// - Precondition: ``finish()`` has not been called.
    public mutating func push(_ newChunk: Data) {
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
        guard !incoming.isEmpty else { return }
        if offset < chunk.count {
            var joined = Data(chunk[(chunk.startIndex + offset)...])
            joined.append(incoming)
            chunk = joined
        } else {
            chunk = incoming
        }
        offset = 0
    }

    /// Marks the end of the stream: an unfinished block will be discarded once the complete ones are read.
    public mutating func finish() {
        inputEnded = true
    }

    /// The next dispatched event, or `nil` when the parser needs another chunk (or, after ``finish()``, has
    /// no more events).
    /// - Throws: ``StreamingError/lineTooLong(limitBytes:)``.
    public mutating func nextEvent() throws(StreamingError) -> ServerSentEvent? {
        if let failure { throw failure }
        let chunk = self.chunk
        let outcome = chunk.withUnsafeBytes { raw in
            raw.withMemoryRebound(to: UInt8.self) { bytes in scan(bytes) }
        }
        switch outcome {
        case .event(let event):
            return event
        case .failed(let error):
            failure = error
            carried = []
            dataBuffer = []
            self.chunk = Data()
            offset = 0
            throw error
        case .needsMore:
            if inputEnded { discardPendingInput() }
            return nil
        }
    }

    private enum ScanOutcome {
        case event(ServerSentEvent)
        case needsMore
        case failed(StreamingError)
    }

    /// Reads lines of `bytes` (the current chunk) from `offset` until one dispatches an event.
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
            var lineEnd = position
            while lineEnd < count {
                let byte = bytes[lineEnd]
                if byte == Self.lineFeed || byte == Self.carriageReturn { break }
                lineEnd += 1
            }
            guard lineEnd < count else {
                guard carried.count + (count - lineStart) <= maximumEventSize else {
                    return .failed(.lineTooLong(limitBytes: maximumEventSize))
                }
                carried.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[lineStart..<count]))
                position = count
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
            let dispatched: ServerSentEvent?
            do {
                if carried.isEmpty {
                    let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd])
                    guard line.count <= maximumEventSize else { return .failed(.lineTooLong(limitBytes: maximumEventSize)) }
                    dispatched = try interpret(line)
                } else {
                    carried.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd]))
                    guard carried.count <= maximumEventSize else { return .failed(.lineTooLong(limitBytes: maximumEventSize)) }
                    var line: [UInt8] = []
                    swap(&line, &carried)
                    dispatched = try line.withUnsafeBufferPointer { buffer throws(StreamingError) in try interpret(buffer) }
                    line.removeAll(keepingCapacity: true)
                    carried = line
                }
            } catch {
                return .failed(error)
            }
            if let dispatched { return .event(dispatched) }
        }
        return .needsMore
    }

    /// Applies one line (without its line end) to the block; returns the event a blank line dispatches.
    private mutating func interpret(_ line: UnsafeBufferPointer<UInt8>) throws(StreamingError) -> ServerSentEvent? {
        guard let first = line.first else { return dispatch() }
        if first == Self.colon { return nil }
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
        if Self.equals(name, "data") {
            guard dataBuffer.count + value.count <= maximumEventSize else {
                throw .lineTooLong(limitBytes: maximumEventSize)
            }
            dataBuffer.append(contentsOf: value)
            dataBuffer.append(Self.lineFeed)
            hasData = true
        } else if Self.equals(name, "event") {
            eventType = String(decoding: value, as: UTF8.self)
        } else if Self.equals(name, "id") {
            if !value.contains(0) { idBuffer = String(decoding: value, as: UTF8.self) }
        } else if Self.equals(name, "retry") {
            if let milliseconds = Self.milliseconds(value) {
                let retry = Duration.milliseconds(milliseconds)
                reconnectionTime = retry
                blockRetry = retry
            }
        }
        return nil
    }

    /// Closes the block at a blank line.
    private mutating func dispatch() -> ServerSentEvent? {
        lastEventID = idBuffer
        defer { resetBlock() }
        guard hasData else { return nil }
        let data = dataBuffer.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer.dropLast()), as: UTF8.self)
        }
        return ServerSentEvent(id: idBuffer, event: eventType.isEmpty ? "message" : eventType, data: data, retry: blockRetry)
    }

    private mutating func resetBlock() {
        dataBuffer.removeAll(keepingCapacity: true)
        hasData = false
        eventType = ""
        blockRetry = nil
    }

    /// The end of the stream: whatever is not a complete block is dropped.
    private mutating func discardPendingInput() {
        carried = []
        streamStart = nil
        dataBuffer = []
        hasData = false
        eventType = ""
        blockRetry = nil
        idBuffer = lastEventID
    }

    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")
    private static let colon = UInt8(ascii: ":")
    private static let space = UInt8(ascii: " ")
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount, let base = bytes.baseAddress else { return false }
        return memcmp(base, name.utf8Start, bytes.count) == 0
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
