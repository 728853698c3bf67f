import Foundation
import NetMultipart
import Testing

@Suite("Encoding: exact bytes")
struct MultipartFormDataEncodingTests {
    @Test("A field and a file part produce the exact RFC 7578 bytes")
    func twoPartFormExactBytes() throws {
        var form = MultipartFormData(boundary: "TestBoundary")
        form.addPart(name: "title", data: Data("Hello".utf8), mimeType: "text/plain")
        form.addPart(
            name: "file", data: Data([0x00, 0xFF, 0x0D, 0x0A]), mimeType: "application/octet-stream", filename: "a.bin")

        var expected = Data(
            """
            --TestBoundary\r
            Content-Disposition: form-data; name="title"\r
            Content-Type: text/plain\r
            \r
            Hello\r
            --TestBoundary\r
            Content-Disposition: form-data; name="file"; filename="a.bin"\r
            Content-Type: application/octet-stream\r
            \r

            """.utf8)
        expected.append(contentsOf: [0x00, 0xFF, 0x0D, 0x0A])
        expected.append(Data("\r\n--TestBoundary--\r\n".utf8))

        #expect(try form.encoded() == expected)
        #expect(form.encodedData() == expected)
    }

    @Test("An empty form is only the close delimiter")
    func emptyForm() throws {
        let form = MultipartFormData(boundary: "B")
        #expect(try form.encoded() == Data("--B--\r\n".utf8))
        #expect(form.encodedLength == 7)
    }

    @Test("Quotes and backslashes in name and filename are backslash-escaped")
    func escapesQuotesAndBackslashes() throws {
        var form = MultipartFormData(boundary: "B")
        form.addPart(name: #"a"b\c"#, data: Data(), mimeType: "text/plain", filename: #""quoted"\.txt"#)

        let body = try #require(String(data: try form.encoded(), encoding: .utf8))
        #expect(body.contains(#"Content-Disposition: form-data; name="a\"b\\c"; filename="\"quoted\"\\.txt""# + "\r\n"))
    }

    @Test("Non-ASCII names and filenames are sent as raw UTF-8")
    func nonASCIIIsRawUTF8() throws {
        var form = MultipartFormData(boundary: "B")
        form.addPart(name: "名前", data: Data("x".utf8), mimeType: "application/pdf", filename: "résumé ✓.pdf")

        let expectedHeader = Data("Content-Disposition: form-data; name=\"名前\"; filename=\"résumé ✓.pdf\"\r\n".utf8)
        let body = try form.encoded()
        #expect(body.range(of: expectedHeader) != nil)
        // No percent- or RFC 2231-encoding sneaks in.
        #expect(body.range(of: Data("filename*".utf8)) == nil)
        #expect(body.range(of: Data("%C3".utf8)) == nil)
    }

    @Test("Empty MIME type: plain fields omit Content-Type")
    func emptyMIMETypeOnFieldOmitsHeader() throws {
        var form = MultipartFormData(boundary: "B")
        form.addPart(name: "f", data: Data("v".utf8), mimeType: "")
        #expect(
            try form.encoded() == Data("--B\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\nv\r\n--B--\r\n".utf8))
    }

    @Test("Empty MIME type: file parts are application/octet-stream")
    func emptyMIMETypeOnFileDefaultsToOctetStream() throws {
        var form = MultipartFormData(boundary: "B")
        form.addPart(name: "f", data: Data("v".utf8), mimeType: "", filename: "")
        #expect(
            try form.encoded()
                == Data(
                    """
                    --B\r
                    Content-Disposition: form-data; name="f"; filename=""\r
                    Content-Type: application/octet-stream\r
                    \r
                    v\r
                    --B--\r

                    """.utf8))
    }

    @Test("addField sends UTF-8 text without Content-Type")
    func addFieldIsUTF8WithoutContentType() throws {
        var form = MultipartFormData(boundary: "B")
        form.addField(name: "greeting", value: "grüß")
        #expect(form.parts == [MultipartFormData.Part(name: "greeting", data: Data("grüß".utf8), mimeType: "")])
        #expect(
            try form.encoded()
                == Data("--B\r\nContent-Disposition: form-data; name=\"greeting\"\r\n\r\ngrüß\r\n--B--\r\n".utf8))
    }

    @Test("addPart stores the part as given, in order")
    func addPartAppendsInOrder() {
        var form = MultipartFormData(boundary: "B")
        form.addPart(name: "a", data: Data([1]), mimeType: "x/y")
        form.addPart(name: "b", data: Data([2]), mimeType: "", filename: "b.bin")
        #expect(
            form.parts == [
                .init(name: "a", data: Data([1]), mimeType: "x/y"),
                .init(name: "b", filename: "b.bin", data: Data([2]), mimeType: ""),
            ])
    }

    @Test("Binary data containing CRLF and dashes but not the delimiter encodes verbatim")
    func binaryDataWithCRLFIsFine() throws {
        let payload =
            Data([0x0D, 0x0A, 0x2D, 0x2D, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x2D, 0x2D, 0x41])
            + Data("\r\n--Boundar\r\n--boundary\r\n".utf8)
        var form = MultipartFormData(boundary: "Boundary")
        form.addPart(name: "bin", data: payload, mimeType: "application/octet-stream", filename: "x")

        let body = try form.encoded()
        let head = Data(
            "--Boundary\r\nContent-Disposition: form-data; name=\"bin\"; filename=\"x\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                .utf8)
        #expect(body == head + payload + Data("\r\n--Boundary--\r\n".utf8))
    }

    @Test("Data slices with a non-zero start index are encoded from their own bytes")
    func dataSliceIsEncodedCorrectly() throws {
        let base = Data("xx\r\n--Bpayload".utf8)
        let slice = base.dropFirst(7)  // "payload"; the delimiter in the base lies outside it
        var form = MultipartFormData(boundary: "B")
        form.addPart(name: "s", data: slice, mimeType: "")
        #expect(
            try form.encoded()
                == Data("--B\r\nContent-Disposition: form-data; name=\"s\"\r\n\r\npayload\r\n--B--\r\n".utf8))
    }

    @Test("Forms with the same boundary and parts are equal")
    func equatable() {
        var a = MultipartFormData(boundary: "B")
        var b = MultipartFormData(boundary: "B")
        a.addField(name: "n", value: "v")
        #expect(a != b)
        b.addField(name: "n", value: "v")
        #expect(a == b)
        #expect(a != MultipartFormData())
    }
}
