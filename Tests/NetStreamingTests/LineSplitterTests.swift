import Foundation
import Testing
import NetStreaming

@Suite("Line splitting")
struct LineSplitterTests {
    @Test("LF and CRLF end lines; a trailing line is returned by finish")
    func basic() throws {
        var splitter = LineSplitter()
        #expect(try splitter.append(Data("a\nb\r\nc".utf8)) == ["a", "b"])
        #expect(splitter.finish() == "c")
        #expect(splitter.finish() == nil)
    }

    @Test("lines split anywhere across chunks, even inside a UTF-8 character, come out whole")
    func splitEverywhere() throws {
        let text = "première ligne\r\nzweite Zeile 🚀\n\nlast"
        let bytes = Array(text.utf8)
        for cut in 0...bytes.count {
            var splitter = LineSplitter()
            var lines = try splitter.append(Data(bytes[..<cut]))
            lines += try splitter.append(Data(bytes[cut...]))
            if let last = splitter.finish() { lines.append(last) }
            #expect(lines == ["première ligne", "zweite Zeile 🚀", "", "last"], "cut at \(cut)")
        }
    }

    @Test("a line over the limit throws")
    func limit() {
        var splitter = LineSplitter(maximumLineLength: 4)
        #expect(throws: LineSplitter.LineTooLong(limit: 4)) { try splitter.append(Data("12345".utf8)) }
    }
}
