import Foundation
import NetMultipart
import Testing

@Suite("Encoding: header injection")
struct MultipartHeaderInjectionTests {
    typealias Field = MultipartEncodingError.HeaderField

    /// "\r\n" is a single Character in Swift, so it is listed separately from "\r" and "\n"
    /// to prove the check works on bytes, not Characters.
    static let forbiddenValues = [
        "\r", "\n", "\r\n", "\0",
        "a\rb", "a\nb", "a\r\nb", "a\0b",
        "evil\"\r\nContent-Type: text/html",
        "é\r\n",
    ]

    static func form(with value: String, in field: Field) -> MultipartFormData {
        var form = MultipartFormData(boundary: "B")
        form.addPart(name: "ok", data: Data("fine".utf8), mimeType: "text/plain", filename: "ok.txt")
        switch field {
        case .name:
            form.addPart(name: value, data: Data(), mimeType: "text/plain", filename: "f.txt")
        case .filename:
            form.addPart(name: "n", data: Data(), mimeType: "text/plain", filename: value)
        case .mimeType:
            form.addPart(name: "n", data: Data(), mimeType: value, filename: "f.txt")
        }
        return form
    }

    @Test(
        "CR, LF, CRLF or NUL in a header value is rejected with the field and part index",
        arguments: Field.allCases, forbiddenValues)
    func rejectsLineBreaks(field: Field, value: String) {
        let form = Self.form(with: value, in: field)
        #expect(throws: MultipartEncodingError.lineBreakInHeader(field: field, partIndex: 1)) {
            try form.encoded()
        }
        #expect(form.encodedData() == nil)
    }

    @Test(
        "Harmless punctuation and Unicode in header values is accepted",
        arguments: Field.allCases, ["a;b", "a=b", "\t", "ü", "\u{2028}", "\u{85}"])
    func acceptsOtherCharacters(field: Field, value: String) throws {
        let form = Self.form(with: value, in: field)
        #expect(try form.encoded().count == form.encodedLength)
    }

    @Test("A filename-less part is not checked for a filename")
    func nilFilenameIsFine() throws {
        var form = MultipartFormData(boundary: "B")
        form.addPart(name: "n", data: Data(), mimeType: "")
        #expect(form.encodedData() != nil)
    }

    @Test("The first offending part wins, whatever the kind of error")
    func firstOffendingPartIsReported() {
        var form = MultipartFormData(boundary: "B")
        form.addPart(name: "first", data: Data("\r\n--B".utf8), mimeType: "")
        form.addPart(name: "second\r\n", data: Data(), mimeType: "")
        #expect(throws: MultipartEncodingError.boundaryInPart(name: "first", partIndex: 0)) {
            try form.encoded()
        }
    }

    @Test("Error descriptions name the field without echoing control characters")
    func errorDescription() {
        let error = MultipartEncodingError.lineBreakInHeader(field: .mimeType, partIndex: 3)
        #expect(error.description == "Multipart part #3: mimeType contains CR, LF or NUL")
        let boundaryError = MultipartEncodingError.invalidBoundary("a\r\n", reason: .invalidCharacter("\r"))
        #expect(!boundaryError.description.unicodeScalars.contains("\r"))
    }
}
