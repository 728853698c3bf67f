import NetKitDigest
import Foundation
import LoopbackServer
import Testing

@Suite("Body digests")
struct BodyDigestTests {
    static let contentType = "multipart/form-data; boundary=Bnd-7"

    /// Three parts whose content is full of near-delimiters (`\r\n--Bnd-` followed by the wrong
    /// byte, a bare CR, dashes), so that every split position lands somewhere awkward.
    static let multipartBody: [UInt8] = {
        var body = Array("--Bnd-7\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHello\r\n".utf8)
        body += Array("--Bnd-7\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a \\\"b\\\".bin\"\r\n".utf8)
        body += Array("Content-Type: application/octet-stream\r\n\r\n".utf8)
        body += [0x00, 0x0D, 0x0A, 0x2D, 0x2D, 0xFF, 0x0D]
        body += Array("\r\n--Bnd-8\r\n--Bnd\r\n-\r\r\n--Bnd-\r\n--Bnd-x".utf8)
        body += (0..<40).map { UInt8(truncatingIfNeeded: $0 * 37) }
        body += Array("\r\n--Bnd-7\r\nContent-Disposition: form-data; name=\"empty\"\r\n\r\n".utf8)
        body += Array("\r\n--Bnd-7--\r\n".utf8)
        return body
    }()

    /// What the whole-body parser makes of the sample, summarised: the reference for the streaming digest.
    static func expectedDigest() throws -> LoopbackBodyDigest {
        let request = LoopbackRequest(headers: [(name: "Content-Type", value: contentType)], body: Data(multipartBody))
        return LoopbackBodyDigest(
            byteCount: multipartBody.count,
            sha256: SHA256.hex(SHA256.hash(multipartBody)),
            parts: try request.multipartParts().map(LoopbackMultipartPartDigest.init),
            multipartError: nil
        )
    }

    private static func digest(_ body: [UInt8], contentType: String?, splitAt splits: [Int]) -> LoopbackBodyDigest {
        var digester = LoopbackBodyDigester(contentType: contentType)
        var start = 0
        for split in splits + [body.count] {
            digester.update(body[start..<split])
            start = split
        }
        return digester.finalize()
    }

    @Test func theSampleReallyHasTheAwkwardParts() throws {
        let digest = try Self.expectedDigest()

        #expect(digest.parts?.map(\.name) == ["title", "file", "empty"])
        #expect(digest.parts?.map(\.byteCount) == [5, 84, 0])
        #expect(digest.parts?[1].filename == #"a "b".bin"#)
        #expect(digest.parts?[1].contentType == "application/octet-stream")
        #expect(digest.parts?[2].sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func oneShotDigestMatchesTheWholeBodyParser() throws {
        let digest = LoopbackBodyDigest(body: Data(Self.multipartBody), contentType: Self.contentType)

        #expect(digest == (try Self.expectedDigest()))
        #expect(try digest.multipartParts() == (try Self.expectedDigest()).parts)
    }

    @Test func everySingleSplitPositionGivesTheSameDigest() throws {
        let expected = try Self.expectedDigest()

        for split in 0...Self.multipartBody.count {
            #expect(
                Self.digest(Self.multipartBody, contentType: Self.contentType, splitAt: [split]) == expected,
                "split at \(split)")
        }
    }

    /// A short middle piece splits a delimiter or header line in three at every position.
    @Test func everyShortMiddlePieceGivesTheSameDigest() throws {
        let expected = try Self.expectedDigest()
        let count = Self.multipartBody.count

        for first in 0...count {
            for second in first...min(first + 12, count) {
                let digest = Self.digest(Self.multipartBody, contentType: Self.contentType, splitAt: [first, second])
                #expect(digest == expected, "splits at \(first), \(second)")
            }
        }
    }

    @Test func byteByByteGivesTheSameDigest() throws {
        let body = Self.multipartBody

        let digest = Self.digest(body, contentType: Self.contentType, splitAt: Array(0..<body.count))

        #expect(digest == (try Self.expectedDigest()))
    }

    @Test(arguments: MultipartParsingTests.malformedCases)
    func malformedBodiesGetTheWholeBodyParsersErrorWhereverTheySplit(_ testCase: MultipartParsingTests.MalformedCase) {
        let body = Array(testCase.body.utf8)
        let contentType = testCase.contentType ?? "multipart/form-data; boundary=XyZ"

        for split in 0...body.count {
            let digest = Self.digest(body, contentType: contentType, splitAt: [split])
            #expect(digest.multipartError == testCase.error, "split at \(split)")
            #expect(digest.parts == nil)
        }
        #expect(
            Self.digest(body, contentType: contentType, splitAt: Array(0..<body.count)).multipartError == testCase.error
        )
    }

    @Test func bodiesThatAreNotMultipartAreStillSizedAndHashed() {
        let digest = LoopbackBodyDigest(body: Data(#"{"a":1}"#.utf8), contentType: "application/json")

        #expect(digest.byteCount == 7)
        #expect(digest.sha256 == SHA256.hex(SHA256.hash(Data(#"{"a":1}"#.utf8))))
        #expect(digest.parts == nil)
        #expect(digest.multipartError == .notMultipartFormData(contentType: "application/json"))
        #expect(throws: LoopbackMultipartError.notMultipartFormData(contentType: "application/json")) {
            try digest.multipartParts()
        }
    }

    @Test func anEndlessPartHeaderSectionIsRejectedInsteadOfHeld() {
        var digester = LoopbackBodyDigester(contentType: "multipart/form-data; boundary=XyZ")
        let opening = Array("--XyZ\r\n".utf8)
        let disposition = Array("Content-Disposition: form-data; name=\"a\"\r\n".utf8)
        let line = Array("X-Filler: \(String(repeating: "f", count: 1000))\r\n".utf8)
        digester.update(opening + disposition)
        for _ in 0..<100 { digester.update(line) }

        // The header section may take 64 KiB: the disposition and 64 filler lines fit, the 65th does not.
        let fitting = (64 * 1024 - disposition.count) / line.count
        #expect(fitting == 64)
        let offset = opening.count + disposition.count + fitting * line.count
        #expect(digester.finalize().multipartError == .malformedPartHeader(offset: offset))
    }

    @Test func digestsSurviveAJSONRoundTrip() throws {
        let digests = [
            try Self.expectedDigest(),
            LoopbackBodyDigest(body: Data("--XyZ--".utf8), contentType: "multipart/form-data; boundary=XyZ"),
        ]

        let decoded = try JSONDecoder().decode([LoopbackBodyDigest].self, from: JSONEncoder().encode(digests))

        #expect(decoded == digests)
        #expect(decoded[1].multipartError == .malformedDelimiter(offset: 5))
    }
}
