import Foundation
import LoopbackServer
import Testing

@Suite("multipart/form-data parsing")
struct MultipartParsingTests {
    private static func request(_ body: String, contentType: String? = "multipart/form-data; boundary=XyZ")
        -> LoopbackRequest
    {
        request(Array(body.utf8), contentType: contentType)
    }

    private static func request(_ body: [UInt8], contentType: String?) -> LoopbackRequest {
        LoopbackRequest(
            headers: contentType.map { [(name: "Content-Type", value: $0)] } ?? [],
            body: Data(body)
        )
    }

    @Test func parsesFieldsAndFiles() throws {
        let body =
            "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"title\"\r\n\r\n"
            + "Hello\r\n"
            + "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n"
            + "Content-Type: text/plain\r\n\r\n"
            + "file contents\r\n"
            + "--XyZ--\r\n"

        let parts = try Self.request(body).multipartParts()

        try #require(parts.count == 2)
        #expect(parts[0].name == "title")
        #expect(parts[0].filename == nil)
        #expect(parts[0].contentType == nil)
        #expect(parts[0].data == Data("Hello".utf8))
        #expect(parts[1].name == "file")
        #expect(parts[1].filename == "a.txt")
        #expect(parts[1].contentType == "text/plain")
        #expect(parts[1].header("content-type") == "text/plain")
        #expect(parts[1].headers.count == 2)
        #expect(parts[1].data == Data("file contents".utf8))
    }

    @Test func unescapesQuotedPairsInParameters() throws {
        let body =
            "--XyZ\r\n"
            + #"Content-Disposition: form-data; name="fi\"eld"; filename="say \"hi\" \\ bye.txt""# + "\r\n\r\n"
            + "x\r\n--XyZ--"

        let part = try #require(try Self.request(body).multipartParts().first)

        #expect(part.name == #"fi"eld"#)
        #expect(part.filename == #"say "hi" \ bye.txt"#)
    }

    @Test func keepsBinaryDataContainingCRLFAndDashesIntact() throws {
        // The boundary preceded by a bare LF or a bare CR is not a delimiter; only CRLF + "--" + boundary is.
        let payload: [UInt8] =
            [0x00, 0x0D, 0x0A, 0x2D, 0x2D, 0xFF]
            + Array("\n--XyZ".utf8)
            + Array("\r--XyZ--".utf8)
            + [0x0D, 0x0A, 0x2D, 0x2D, 0x58, 0x0D, 0x0A, 0x0D]
        let head =
            "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"blob\"; filename=\"b.bin\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n"
        let body =
            Array(head.utf8)
            + payload
            + Array("\r\n--XyZ--".utf8)

        let request = Self.request(body, contentType: "multipart/form-data; boundary=XyZ")
        let part = try #require(try request.multipartParts().first)

        #expect(part.data == Data(payload))
    }

    @Test func acceptsQuotedBoundariesAndMixedCaseTypes() throws {
        let boundary = "a'()+_,-./:=? z"
        let body = "--\(boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n\r\n--\(boundary)--"

        let contentType = "Multipart/Form-Data; charset=utf-8; BOUNDARY=\"\(boundary)\""
        let parts = try Self.request(body, contentType: contentType).multipartParts()

        #expect(parts.map(\.name) == ["a"])
        #expect(parts.first?.data == Data())
    }

    @Test func acceptsUTF8NamesAndTokenParameters() throws {
        let body = "--XyZ\r\ncontent-disposition: FORM-DATA; name=plain; filename=\"résumé.pdf\"\r\n\r\npdf\r\n--XyZ--"

        let part = try #require(try Self.request(body).multipartParts().first)

        #expect(part.name == "plain")
        #expect(part.filename == "résumé.pdf")
    }

    @Test func parsesABodyReceivedOverTheWire() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let body = "--B\r\nContent-Disposition: form-data; name=\"n\"\r\n\r\nv\r\n--B--\r\n"
        let client = try TestClient(port: server.port)

        try client.send(
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        )
        _ = try client.readResponse()

        let request = try #require(server.requests.first)
        let parts = try request.multipartParts()
        #expect(parts.map(\.name) == ["n"])
        #expect(parts.map(\.data) == [Data("v".utf8)])
    }

    struct MalformedCase: Sendable, CustomTestStringConvertible {
        let label: String
        /// `nil` means the default `multipart/form-data; boundary=XyZ`.
        let contentType: String?
        let body: String
        let error: LoopbackMultipartError
        var testDescription: String { label }
    }

    private static let disposition = "Content-Disposition: form-data; name=\"a\"\r\n"

    static let malformedCases: [MalformedCase] = [
        MalformedCase(
            label: "wrong content type", contentType: "application/json", body: "{}",
            error: .notMultipartFormData(contentType: "application/json")
        ),
        MalformedCase(label: "no boundary", contentType: "multipart/form-data", body: "", error: .invalidBoundary(nil)),
        MalformedCase(
            label: "boundary too long",
            contentType: "multipart/form-data; boundary=\(String(repeating: "b", count: 71))",
            body: "", error: .invalidBoundary(String(repeating: "b", count: 71))
        ),
        MalformedCase(
            label: "boundary ends in space", contentType: "multipart/form-data; boundary=\"ab \"", body: "",
            error: .invalidBoundary("ab ")
        ),
        MalformedCase(
            label: "unterminated quoted boundary", contentType: "multipart/form-data; boundary=\"ab", body: "",
            error: .notMultipartFormData(contentType: "multipart/form-data; boundary=\"ab")
        ),
        MalformedCase(
            label: "preamble", contentType: nil, body: "preamble\r\n--XyZ\r\n\(disposition)\r\nv\r\n--XyZ--",
            error: .missingOpeningDelimiter
        ),
        MalformedCase(
            label: "no close delimiter", contentType: nil, body: "--XyZ\r\n\(disposition)\r\nvalue",
            error: .missingCloseDelimiter
        ),
        MalformedCase(
            label: "truncated after delimiter", contentType: nil, body: "--XyZ\r\n\(disposition)\r\nv\r\n--XyZ",
            error: .missingCloseDelimiter
        ),
        MalformedCase(
            label: "transport padding", contentType: nil, body: "--XyZ  \r\n\(disposition)\r\nv\r\n--XyZ--",
            error: .malformedDelimiter(offset: 5)
        ),
        MalformedCase(
            label: "boundary inside data", contentType: nil, body: "--XyZ\r\n\(disposition)\r\nv\r\n--XyZ!\r\n--XyZ--",
            error: .malformedDelimiter(offset: 59)
        ),
        MalformedCase(label: "no parts", contentType: nil, body: "--XyZ--", error: .malformedDelimiter(offset: 5)),
        MalformedCase(
            label: "epilogue", contentType: nil, body: "--XyZ\r\n\(disposition)\r\nv\r\n--XyZ--\r\nmore",
            error: .unexpectedEpilogue
        ),
        MalformedCase(
            label: "no disposition", contentType: nil, body: "--XyZ\r\nContent-Type: text/plain\r\n\r\nv\r\n--XyZ--",
            error: .invalidContentDisposition(nil)
        ),
        MalformedCase(
            label: "not form-data", contentType: nil,
            body: "--XyZ\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nv\r\n--XyZ--",
            error: .invalidContentDisposition("attachment; name=\"a\"")
        ),
        MalformedCase(
            label: "no name", contentType: nil,
            body: "--XyZ\r\nContent-Disposition: form-data; filename=\"f\"\r\n\r\nv\r\n--XyZ--",
            error: .missingName
        ),
        MalformedCase(
            label: "duplicate name", contentType: nil,
            body: "--XyZ\r\nContent-Disposition: form-data; name=a; name=b\r\n\r\nv\r\n--XyZ--",
            error: .invalidContentDisposition("form-data; name=a; name=b")
        ),
        MalformedCase(
            label: "unterminated quoted name", contentType: nil,
            body: "--XyZ\r\nContent-Disposition: form-data; name=\"a\r\n\r\nv\r\n--XyZ--",
            error: .invalidContentDisposition("form-data; name=\"a")
        ),
        MalformedCase(
            label: "header without colon", contentType: nil, body: "--XyZ\r\n\(disposition)Oops\r\n\r\nv\r\n--XyZ--",
            error: .malformedPartHeader(offset: 49)
        ),
        MalformedCase(
            label: "folded header", contentType: nil, body: "--XyZ\r\n\(disposition) folded\r\n\r\nv\r\n--XyZ--",
            error: .malformedPartHeader(offset: 49)
        ),
        MalformedCase(
            label: "headers never end", contentType: nil, body: "--XyZ\r\n\(disposition)--XyZ--",
            error: .malformedPartHeader(offset: 49)
        ),
    ]

    @Test(arguments: malformedCases)
    func rejectsMalformedInput(_ testCase: MalformedCase) {
        let request = Self.request(
            testCase.body, contentType: testCase.contentType ?? "multipart/form-data; boundary=XyZ")
        #expect(throws: testCase.error) { try request.multipartParts() }
    }

    @Test func rejectsAMissingContentTypeHeader() {
        let request = LoopbackRequest(body: Data("--XyZ--".utf8))
        #expect(throws: LoopbackMultipartError.notMultipartFormData(contentType: nil)) { try request.multipartParts() }
    }
}
