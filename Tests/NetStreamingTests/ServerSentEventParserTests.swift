import Foundation
import NetCore
import Testing
import NetStreaming

/// What a parser reads from `chunks`: the events, and its state at the end.
struct ParsedStream: Equatable {
    var events: [ServerSentEvent]
    var lastEventID: String?
    var reconnectionTime: Duration?
}

func parseEvents(
    _ chunks: [Data],
    maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize,
    lastEventID: String? = nil
) throws -> ParsedStream {
    var parser = ServerSentEventParser(maximumEventSize: maximumEventSize, lastEventID: lastEventID)
    var events: [ServerSentEvent] = []
    for chunk in chunks {
        parser.push(chunk)
        while let event = try parser.nextEvent() { events.append(event) }
    }
    parser.finish()
    while let event = try parser.nextEvent() { events.append(event) }
    return ParsedStream(events: events, lastEventID: parser.lastEventID, reconnectionTime: parser.reconnectionTime)
}

func parseEvents(_ text: String, maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize) throws
    -> ParsedStream
{
    try parseEvents([Data(text.utf8)], maximumEventSize: maximumEventSize)
}

func events(_ text: String) throws -> [ServerSentEvent] {
    try parseEvents(text).events
}

@Suite("Server-sent event parsing")
struct ServerSentEventParserTests {
    // MARK: The WHATWG standard's examples

    @Test("spec: three data lines, once followed by a blank line, are one event joined with LF")
    func specStockTicker() throws {
        #expect(try events("data: YHOO\ndata: +2\ndata: 10\n\n") == [ServerSentEvent(data: "YHOO\n+2\n10")])
    }

    @Test("spec: comment block, id set, id reset by an empty id, one leading space kept beyond the first")
    func specFourBlocks() throws {
        let parsed = try parseEvents(
            ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n")
        #expect(
            parsed.events == [
                ServerSentEvent(id: "1", data: "first event"),
                ServerSentEvent(id: "", data: "second event"),
                ServerSentEvent(id: "", data: " third event"),
            ])
        #expect(parsed.lastEventID == "")
    }

    @Test("spec: 'data' alone gives empty data, two give one LF, an unterminated last block is discarded")
    func specEmptyData() throws {
        #expect(try events("data\n\ndata\ndata\n\ndata:") == [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")])
    }

    @Test("spec: the space after the colon is optional")
    func specOptionalSpace() throws {
        #expect(
            try events("data:test\n\ndata: test\n\n") == [ServerSentEvent(data: "test"), ServerSentEvent(data: "test")])
    }

    @Test("spec: event types")
    func specEventTypes() throws {
        #expect(
            try events("event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent: add\ndata: 113411\n\n") == [
                ServerSentEvent(event: "add", data: "73857293"),
                ServerSentEvent(event: "remove", data: "2153"),
                ServerSentEvent(event: "add", data: "113411"),
            ])
    }

    @Test("spec: introduction's messages")
    func specIntroduction() throws {
        let stream =
            "data: This is the first message.\n\ndata: This is the second message, it\ndata: has two lines.\n\ndata: This is the third message.\n\n"
        #expect(
            try events(stream).map(\.data) == [
                "This is the first message.", "This is the second message, it\nhas two lines.",
                "This is the third message.",
            ])
    }

    // MARK: Line ends

    @Test("LF, CR and CRLF all end lines, mixed in one stream")
    func lineEnds() throws {
        let expected = [ServerSentEvent(data: "a\nb"), ServerSentEvent(data: "c")]
        #expect(try events("data: a\ndata: b\n\ndata: c\n\n") == expected)
        #expect(try events("data: a\rdata: b\r\rdata: c\r\r") == expected)
        #expect(try events("data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n") == expected)
        #expect(try events("data: a\rdata: b\r\n\ndata: c\n\r") == expected)
    }

    @Test("a CR ending a chunk and an LF opening the next are one line end, not a blank line")
    func crlfAcrossChunks() throws {
        let parsed = try parseEvents([
            Data("data: a\r".utf8), Data("\ndata: b\r".utf8), Data("\n\r".utf8), Data("\n".utf8),
        ])
        #expect(parsed.events == [ServerSentEvent(data: "a\nb")])
        // An empty chunk between them changes nothing.
        let withEmpty = try parseEvents([Data("data: a\r".utf8), Data(), Data("\ndata: b\r\n\r\n".utf8)])
        #expect(withEmpty.events == [ServerSentEvent(data: "a\nb")])
    }

    // MARK: Byte order mark

    @Test("a leading BOM is dropped once, also when split across chunks; a second one is part of the line")
    func byteOrderMark() throws {
        #expect(try events("\u{FEFF}data: x\n\n") == [ServerSentEvent(data: "x")])
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let rest = Array("data: x\n\n".utf8)
        #expect(
            try parseEvents([Data(bom[..<1]), Data(bom[1..<2]), Data(bom[2...] + rest)]).events == [
                ServerSentEvent(data: "x")
            ])
        // A second BOM makes the field name "\u{FEFF}data", which is unknown: nothing is dispatched.
        #expect(try events("\u{FEFF}\u{FEFF}data: x\n\n") == [])
        // A BOM anywhere else is text.
        #expect(try events("data: \u{FEFF}x\n\n") == [ServerSentEvent(data: "\u{FEFF}x")])
        // Bytes that only start like a BOM are kept.
        #expect(try parseEvents([Data([0xEF]), Data("\ndata: y\n\n".utf8)]).events == [ServerSentEvent(data: "y")])
    }

    // MARK: Fields

    @Test("an id containing NUL is ignored; the previous id stays in effect")
    func idWithNul() throws {
        let parsed = try parseEvents("id: 1\ndata: a\n\nid: 2\u{0}3\ndata: b\n\n")
        #expect(parsed.events == [ServerSentEvent(id: "1", data: "a"), ServerSentEvent(id: "1", data: "b")])
        #expect(parsed.lastEventID == "1")
        #expect(try events("id: \u{0}\ndata: c\n\n") == [ServerSentEvent(id: nil, data: "c")])
    }

    @Test("a block without data is not dispatched, but its id becomes the last event id")
    func emptyDataNotDispatched() throws {
        let parsed = try parseEvents("id: 7\nevent: ping\n\ndata: x\n\n")
        #expect(parsed.events == [ServerSentEvent(id: "7", data: "x")])
        let onlyID = try parseEvents("id: 8\n\n")
        #expect(onlyID.events == [])
        #expect(onlyID.lastEventID == "8")
    }

    @Test("an id in a block the stream never closed does not count")
    func idInUnclosedBlock() throws {
        let parsed = try parseEvents("id: 1\ndata: a\n\nid: 2\ndata: b\n")
        #expect(parsed.events == [ServerSentEvent(id: "1", data: "a")])
        #expect(parsed.lastEventID == "1")
    }

    @Test("an unterminated last block is not dispatched at the end of the stream")
    func unterminatedLastBlock() throws {
        #expect(try events("data: a\n\ndata: b\n") == [ServerSentEvent(data: "a")])
        #expect(try events("data: a\n\ndata: b") == [ServerSentEvent(data: "a")])
        #expect(try events("data: a\n\ndata: b\r") == [ServerSentEvent(data: "a")])
        #expect(try events("data: a\n") == [])
    }

    @Test("retry: only ASCII digits count; it sets the event's retry and the parser's reconnection time")
    func retry() throws {
        let parsed = try parseEvents("retry: 1500\ndata: a\n\ndata: b\n\n")
        #expect(parsed.events == [ServerSentEvent(data: "a", retry: .milliseconds(1500)), ServerSentEvent(data: "b")])
        #expect(parsed.reconnectionTime == .milliseconds(1500))
        for invalid in [
            "retry: 15x0", "retry: -1", "retry: 1.5", "retry:", "retry: ", "retry:  15", "retry: 15 ", "retry",
            "retry: ١٥",
        ] {
            let result = try parseEvents("\(invalid)\ndata: a\n\n")
            #expect(result.events == [ServerSentEvent(data: "a")], "\(invalid)")
            #expect(result.reconnectionTime == nil, "\(invalid)")
        }
        #expect(try parseEvents("retry:0\ndata: a\n\n").events == [ServerSentEvent(data: "a", retry: .zero)])
    }

    @Test("retry in a block without data still sets the reconnection time; a huge value saturates")
    func retryWithoutData() throws {
        let parsed = try parseEvents("retry: 3000\n\n")
        #expect(parsed.events == [])
        #expect(parsed.reconnectionTime == .milliseconds(3000))
        #expect(try parseEvents("retry: 99999999999999999999999999\n\n").reconnectionTime == .milliseconds(Int.max))
    }

    @Test("comments are ignored, anywhere in a block")
    func comments() throws {
        #expect(try events(":hello\n: world\ndata: a\n:mid\ndata: b\n\n:\n\n") == [ServerSentEvent(data: "a\nb")])
    }

    @Test("a field without colon has an empty value; only one leading space is removed")
    func fieldParsing() throws {
        #expect(try events("data\ndata\n\n") == [ServerSentEvent(data: "\n")])
        #expect(try events("data:  two spaces\n\n") == [ServerSentEvent(data: " two spaces")])
        #expect(try events("data:\tx\n\n") == [ServerSentEvent(data: "\tx")])
        #expect(try events("data: a: b\n\n") == [ServerSentEvent(data: "a: b")])
        #expect(try events("event\ndata: x\n\n") == [ServerSentEvent(event: "message", data: "x")])
    }

    @Test("unknown fields and differently cased names are ignored")
    func unknownFields() throws {
        #expect(try events("foo: bar\nData: no\ndata : no\nDATA: no\ndata: yes\n\n") == [ServerSentEvent(data: "yes")])
    }

    @Test("the event type applies to its block only; an empty type is message")
    func eventTypeReset() throws {
        #expect(
            try events("event: a\ndata: 1\n\ndata: 2\n\nevent:\ndata: 3\n\nevent: b\n\ndata: 4\n\n") == [
                ServerSentEvent(event: "a", data: "1"),
                ServerSentEvent(event: "message", data: "2"),
                ServerSentEvent(event: "message", data: "3"),
                ServerSentEvent(event: "message", data: "4"),
            ])
    }

    @Test("the id persists across events until changed; a seeded last event id applies from the start")
    func idPersists() throws {
        #expect(try events("id: x\ndata: 1\n\ndata: 2\n\n").map(\.id) == ["x", "x"])
        let seeded = try parseEvents([Data("data: 1\n\nid: 9\ndata: 2\n\n".utf8)], lastEventID: "41")
        #expect(seeded.events.map(\.id) == ["41", "9"])
        let untouched = try parseEvents([Data(": nothing\n".utf8)], lastEventID: "41")
        #expect(untouched.lastEventID == "41")
    }

    @Test("invalid UTF-8 becomes U+FFFD; a character split across chunks is intact")
    func invalidUTF8() throws {
        #expect(
            try parseEvents([Data([0x64, 0x61, 0x74, 0x61, 0x3A, 0xFF, 0x0A, 0x0A])]).events == [
                ServerSentEvent(data: "\u{FFFD}")
            ])
        let euro = Array("data: €\n\n".utf8)
        #expect(try parseEvents([Data(euro[..<7]), Data(euro[7...])]).events == [ServerSentEvent(data: "€")])
    }

    // MARK: Limits

    @Test("a line longer than the limit throws lineTooLong, even before its end arrives, and the parser stays failed")
    func lineLimit() throws {
        #expect(throws: StreamingError.lineTooLong(limitBytes: 10)) {
            try parseEvents("data: 12345\n\n", maximumEventSize: 10)
        }
        #expect(throws: StreamingError.lineTooLong(limitBytes: 10)) {
            try parseEvents(": a long comment\n\n", maximumEventSize: 10)
        }
        var parser = ServerSentEventParser(maximumEventSize: 10)
        parser.push(Data("data: 1234".utf8))
        #expect(try parser.nextEvent() == nil)
        parser.push(Data("5".utf8))
        #expect(throws: StreamingError.lineTooLong(limitBytes: 10)) { try parser.nextEvent() }
        parser.push(Data("\n\ndata: ok\n\n".utf8))
        #expect(throws: StreamingError.lineTooLong(limitBytes: 10)) { try parser.nextEvent() }
    }

    @Test("an event whose joined data grows past the limit throws lineTooLong; up to the limit passes")
    func dataLimit() throws {
        #expect(
            try parseEvents("data:1234\ndata:12345\n\n", maximumEventSize: 10).events == [
                ServerSentEvent(data: "1234\n12345")
            ])
        #expect(throws: StreamingError.lineTooLong(limitBytes: 10)) {
            try parseEvents("data:12345\ndata:12345\n\n", maximumEventSize: 10)
        }
    }

    // MARK: Chunking

    static let samples: [String] = [
        "\u{FEFF}: comment\r\nid: 1\r\nevent: update\r\ndata: {\"a\":1}\r\ndata: ünïcødé 🚀\r\n\r\nretry: 250\rdata: x\r\rid\ndata\n\n",
        "data: a\rdata: b\r\n\r\nid: 2\u{0}\nid: 3\n\n:c\ndata:  sp\n\nevent: e\ndata: tail",
        "\u{FEFF}\u{FEFF}data: no\n\ndata: yes\r\n\r\nretry: 1x\nretry: 77\ndata: z\r\n\r\n",
    ]

    @Test(
        "every sample cut into 2 or 3 chunks at every position, or byte by byte, parses as the whole",
        arguments: samples)
    func everySplit(sample: String) throws {
        let whole = try parseEvents(sample)
        #expect(!whole.events.isEmpty)
        for chunks in ChunkSplits.all(sample) {
            #expect(try parseEvents(chunks) == whole, "chunks \(chunks.map(\.count))")
        }
    }

    @Test("the first sample parses to what the standard says")
    func firstSampleMeaning() throws {
        let parsed = try parseEvents(Self.samples[0])
        #expect(
            parsed.events == [
                ServerSentEvent(id: "1", event: "update", data: "{\"a\":1}\nünïcødé 🚀"),
                ServerSentEvent(id: "1", data: "x", retry: .milliseconds(250)),
                ServerSentEvent(id: "", data: ""),
            ])
        #expect(parsed.reconnectionTime == .milliseconds(250))
        let second = try parseEvents(Self.samples[1])
        #expect(second.events == [ServerSentEvent(data: "a\nb"), ServerSentEvent(id: "3", data: " sp")])
    }

    @Test("chunks that are slices of larger Data values are read from their own start")
    func slices() throws {
        #expect(try parseEvents(ChunkSplits.slices("data: s\n\n")).events == [ServerSentEvent(data: "s")])
    }

    @Test("the memberwise defaults describe a plain message")
    func defaults() {
        let event = ServerSentEvent()
        #expect(event.id == nil && event.event == "message" && event.data == "" && event.retry == nil)
    }
}
