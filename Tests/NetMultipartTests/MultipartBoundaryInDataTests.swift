import Foundation
@testable import NetMultipart
import Testing

@Suite("Encoding: boundary inside part data")
struct MultipartBoundaryInDataTests {
    static let boundary = "B0und'ary"

    @Test(
        "Data containing CRLF--boundary is rejected",
        arguments: [
            "\r\n--B0und'ary",
            "x\r\n--B0und'ary",
            "x\r\n--B0und'aryx",
            "x\r\n--B0und'ary--\r\n",
            "\r\r\n--B0und'ary",
            "\r\n\r\n--B0und'ary",
            "\r\n-\r\n--B0und'ary",
            "--B0und'ary",  // follows the CRLF ending the headers
            "--B0und'ary--",
        ])
    func rejectsDelimiter(payload: String) {
        var form = MultipartFormData(boundary: Self.boundary)
        form.addPart(name: "ok", data: Data("fine".utf8), mimeType: "")
        form.addPart(name: "bad", data: Data(payload.utf8), mimeType: "application/octet-stream", filename: "b")
        #expect(throws: MultipartEncodingError.boundaryInPart(name: "bad", partIndex: 1)) {
            try form.encoded()
        }
        #expect(form.encodedData() == nil)
    }

    @Test(
        "Near misses of the delimiter are accepted",
        arguments: [
            "",
            "\r", "\r\n", "\r\n-", "\r\n--", "\r\n--B0und'ar",
            "\r\n-B0und'ary",
            "\n--B0und'ary",
            "\r--B0und'ary",
            "x--B0und'ary",
            "\r\n--b0und'ary",
            "-B0und'ary",
            " --B0und'ary",
            "\r\n--B0und'Ary",
        ])
    func acceptsNearMisses(payload: String) throws {
        var form = MultipartFormData(boundary: Self.boundary)
        form.addPart(name: "p", data: Data(payload.utf8), mimeType: "")
        let body = try form.encoded()
        #expect(body.count == form.encodedLength)
        let head = Data("--B0und'ary\r\nContent-Disposition: form-data; name=\"p\"\r\n\r\n".utf8)
        #expect(body == head + Data(payload.utf8) + Data("\r\n--B0und'ary--\r\n".utf8))
    }

    @Test("A data slice is checked on its own bytes, from its own start")
    func sliceStartIsTreatedAsPartStart() {
        let base = Data("xyz--B0und'ary".utf8)
        var form = MultipartFormData(boundary: Self.boundary)
        form.addPart(name: "s", data: base.dropFirst(3), mimeType: "")
        #expect(throws: MultipartEncodingError.boundaryInPart(name: "s", partIndex: 0)) {
            try form.encoded()
        }
    }

    @Test("The scanner finds a delimiter split across chunks at any position")
    func scannerAcrossChunks() {
        let data = Data("abc\r\n--B0und'ary xyz".utf8)
        for split in 0...data.count {
            var scanner = MultipartDelimiterScanner(boundary: Self.boundary)
            let first = scanner.scan(data.prefix(split))
            let second = scanner.scan(data.dropFirst(split))
            #expect(second, "split at \(split)")
            #expect(first == (split >= 16), "split at \(split)")
            #expect(scanner.found)
            let afterFound = scanner.scan(Data())
            #expect(afterFound, "stays found")
        }
    }

    @Test("The scanner treats the very first bytes as following CRLF, only once")
    func scannerStartState() {
        var atStart = MultipartDelimiterScanner(boundary: "B")
        let foundAtStart = atStart.scan(Data("--B".utf8))
        #expect(foundAtStart)

        var later = MultipartDelimiterScanner(boundary: "B")
        let foundInX = later.scan(Data("x".utf8))
        let foundAfterX = later.scan(Data("--B".utf8))
        #expect(!foundInX)
        #expect(!foundAfterX)
    }

    /// The delimiter the slow way: after the CRLF that ends the headers, anywhere in the data.
    static func naiveContainsDelimiter(_ data: [UInt8], boundary: String) -> Bool {
        let pattern = Array("\r\n--\(boundary)".utf8)
        let haystack = Array("\r\n".utf8) + data
        guard haystack.count >= pattern.count else { return false }
        return (0...(haystack.count - pattern.count)).contains { Array(haystack[$0..<($0 + pattern.count)]) == pattern }
    }

    @Test("The scanner agrees with a naive search on random pieces of delimiters and near misses, split anywhere")
    func scannerAgreesWithNaiveSearch() {
        let boundary = "ab"
        let pieces = ["\r", "\n", "-", "a", "b", "x", "\r\n", "--", "\r\n-", "\r\n--a", "\r\n--ab", "\r\r\n--"].map {
            Array($0.utf8)
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            // A fixed-seed linear congruential generator: the same cases on every run.
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var found = 0
        for _ in 0..<3000 {
            let data = (0..<next(10)).flatMap { _ in pieces[next(pieces.count)] }
            let expected = Self.naiveContainsDelimiter(data, boundary: boundary)
            found += expected ? 1 : 0
            let split = data.isEmpty ? 0 : next(data.count + 1)
            var scanner = MultipartDelimiterScanner(boundary: boundary)
            _ = scanner.scan(Data(data[..<split]))
            let result = scanner.scan(Data(data[split...]))
            #expect(result == expected, "\(data) split at \(split)")
        }
        #expect(found > 100, "the cases include delimiters")
    }
}
