import Foundation
import NetCore
import Testing
import NetStreaming

/// The lines of `chunks` as the splitter returns them, the last unterminated one included.
func splitLines(_ chunks: [Data], maximumLineLength: Int = LineSplitter.defaultMaximumLineLength) throws -> [String] {
    var splitter = LineSplitter(maximumLineLength: maximumLineLength)
    var lines: [String] = []
    for chunk in chunks {
        splitter.push(chunk)
        while let line = try splitter.nextLine() { lines.append(line) }
    }
    splitter.finish()
    while let line = try splitter.nextLine() { lines.append(line) }
    return lines
}

@Suite("Line splitting")
struct LineSplitterTests {
    static let sample = "première ligne\r\nzweite Zeile 🚀\n\n\r\nvierte\r\r\n  \nlast without break é"

    @Test("LF and CRLF end lines; a lone CR is text; the last line comes after finish()")
    func lineEnds() throws {
        #expect(try splitLines([Data("a\nb\r\nc\rd\r\r\ne".utf8)]) == ["a", "b", "c\rd\r", "e"])
        #expect(try splitLines([Data("a\n".utf8)]) == ["a"])
        #expect(try splitLines([Data("a\nlast\r".utf8)]) == ["a", "last"])
        #expect(try splitLines([]) == [])
    }

    @Test("empty lines are returned by the splitter (the views skip them)")
    func emptyLines() throws {
        #expect(try splitLines([Data("\n\r\na\n\n".utf8)]) == ["", "", "a", ""])
    }

    @Test("a sample cut anywhere into 2 or 3 chunks, or byte by byte, gives the lines of the whole")
    func everySplit() throws {
        let expected = try splitLines([Data(Self.sample.utf8)])
        #expect(expected == ["première ligne", "zweite Zeile 🚀", "", "", "vierte\r", "  ", "last without break é"])
        for chunks in ChunkSplits.all(Self.sample) {
            #expect(try splitLines(chunks) == expected, "chunks \(chunks.map(\.count))")
        }
    }

    @Test("a CR closing one chunk and an LF opening the next are one CRLF")
    func crlfAcrossChunks() throws {
        #expect(try splitLines([Data("a\r".utf8), Data("\nb".utf8)]) == ["a", "b"])
    }

    @Test("chunks that are slices of larger Data values are read from their own start")
    func slices() throws {
        #expect(try splitLines(ChunkSplits.slices("one\ntwo")) == ["one", "two"])
    }

    @Test("nextLineData returns the exact bytes of a line, without its break")
    func lineData() throws {
        var splitter = LineSplitter()
        splitter.push(Data([0x61, 0xFF, 0x0D, 0x0A, 0x62]))
        #expect(try splitter.nextLineData() == Data([0x61, 0xFF]))
        #expect(try splitter.nextLineData() == nil)
        splitter.push(Data([0x63, 0x0A]))
        #expect(try splitter.nextLineData() == Data([0x62, 0x63]))
        splitter.finish()
        #expect(try splitter.nextLineData() == nil)
    }

    @Test("invalid UTF-8 becomes U+FFFD, within a chunk, across chunks, and at the end of the stream")
    func invalidUTF8() throws {
        #expect(try splitLines([Data([0x61, 0xFF, 0x62, 0x0A])]) == ["a\u{FFFD}b"])
        #expect(try splitLines([Data([0x61, 0xC3]), Data([0x28, 0x0A])]) == ["a\u{FFFD}("])
        #expect(try splitLines([Data([0x61, 0xE2, 0x82])]) == ["a\u{FFFD}"])
        // A valid character split across chunks is not replaced.
        #expect(try splitLines([Data([0x61, 0xE2, 0x82]), Data([0xAC, 0x0A])]) == ["a€"])
    }

    @Test("a line at the limit passes; one byte more throws lineTooLong")
    func limit() throws {
        #expect(try splitLines([Data("1234\n".utf8)], maximumLineLength: 4) == ["1234"])
        #expect(try splitLines([Data("1234\r\n".utf8)], maximumLineLength: 4) == ["1234"])
        #expect(
            try splitLines([Data("12".utf8), Data("34\r".utf8), Data("\n".utf8)], maximumLineLength: 4) == ["1234"])
        #expect(try splitLines([Data("1234".utf8)], maximumLineLength: 4) == ["1234"])
        #expect(throws: StreamingError.lineTooLong(limitBytes: 4)) {
            try splitLines([Data("12345\n".utf8)], maximumLineLength: 4)
        }
        #expect(throws: StreamingError.lineTooLong(limitBytes: 4)) {
            try splitLines([Data("12".utf8), Data("345\n".utf8)], maximumLineLength: 4)
        }
        #expect(throws: StreamingError.lineTooLong(limitBytes: 4)) {
            try splitLines([Data("12345".utf8)], maximumLineLength: 4)
        }
        #expect(throws: StreamingError.lineTooLong(limitBytes: 4)) {
            try splitLines([Data("1234\r".utf8), Data("x\n".utf8)], maximumLineLength: 4)
        }
    }

    @Test("an overlong line throws before its end arrives (bounded memory), and the splitter stays failed")
    func limitIsEarlyAndSticky() throws {
        var splitter = LineSplitter(maximumLineLength: 4)
        splitter.push(Data("ok\n123".utf8))
        #expect(try splitter.nextLine() == "ok")
        #expect(try splitter.nextLine() == nil)
        splitter.push(Data("45".utf8))
        #expect(throws: StreamingError.lineTooLong(limitBytes: 4)) { try splitter.nextLine() }
        splitter.push(Data("\nfine\n".utf8))
        #expect(throws: StreamingError.lineTooLong(limitBytes: 4)) { try splitter.nextLine() }
    }

    @Test("a chunk pushed before the previous one is drained is joined to its unread lines")
    func pushWithoutDraining() throws {
        var splitter = LineSplitter()
        splitter.push(Data("a\nb".utf8))
        splitter.push(Data("c\nd\n".utf8))
        #expect(try splitter.nextLine() == "a")
        #expect(try splitter.nextLine() == "bc")
        #expect(try splitter.nextLine() == "d")
        #expect(try splitter.nextLine() == nil)
    }
}
