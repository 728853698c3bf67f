import Foundation
import NetMultipart
import Testing

@Suite("Boundary and Content-Type")
struct MultipartBoundaryTests {
    @Test("The default boundary is a UUID")
    func defaultBoundaryIsUUID() {
        let form = MultipartFormData()
        #expect(UUID(uuidString: form.boundary) != nil)
        #expect(form.parts.isEmpty)
    }

    @Test("Each form gets its own boundary")
    func defaultBoundariesDiffer() {
        let boundaries = Set((0..<100).map { _ in MultipartFormData().boundary })
        #expect(boundaries.count == 100)
    }

    @Test(
        "Valid RFC 2046 boundaries are accepted",
        arguments: [
            "a",
            String(repeating: "z", count: 70),
            "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
            "'()+_,-./:=?",
            "inner space",
            " leading space",
            "----WebKitFormBoundary7MA4YWxkTrZu0gW",
        ])
    func acceptsValidBoundary(boundary: String) throws {
        let form = try MultipartFormData(validatingBoundary: boundary)
        #expect(form.boundary == boundary)
        #expect(form == MultipartFormData(boundary: boundary))
    }

    @Test(
        "Invalid boundaries are rejected with the broken rule",
        arguments: [
            ("", MultipartEncodingError.BoundaryProblem.empty),
            (String(repeating: "z", count: 71), .tooLong(length: 71)),
            ("trailing ", .endsWithSpace),
            (" ", .endsWithSpace),
            ("line\r\nbreak", .invalidCharacter("\r")),
            ("\r\n", .invalidCharacter("\r")),
            ("lf\n", .invalidCharacter("\n")),
            ("nul\0", .invalidCharacter("\0")),
            ("quo\"te", .invalidCharacter("\"")),
            ("back\\slash", .invalidCharacter("\\")),
            ("semi;colon", .invalidCharacter(";")),
            ("tab\t", .invalidCharacter("\t")),
            ("é", .invalidCharacter("é")),
            (String(repeating: "é", count: 80), .invalidCharacter("é")),
        ])
    func rejectsInvalidBoundary(boundary: String, problem: MultipartEncodingError.BoundaryProblem) {
        #expect(throws: MultipartEncodingError.invalidBoundary(boundary, reason: problem)) {
            try MultipartFormData(validatingBoundary: boundary)
        }
    }

    @Test(
        "Content-Type leaves token boundaries unquoted",
        arguments: [
            "TestBoundary", "----WebKitFormBoundary7MA4YWxkTrZu0gW", "a'b+c_d-e.f",
        ])
    func contentTypeUnquoted(boundary: String) {
        #expect(MultipartFormData(boundary: boundary).contentType == "multipart/form-data; boundary=\(boundary)")
    }

    @Test(
        "Content-Type quotes boundaries with non-token characters",
        arguments: [
            "a b", "a:b", "a=b", "a?b", "a/b", "a,b", "(a)",
        ])
    func contentTypeQuoted(boundary: String) {
        #expect(MultipartFormData(boundary: boundary).contentType == "multipart/form-data; boundary=\"\(boundary)\"")
    }

    @Test("Content-Type of a default form carries its UUID boundary unquoted")
    func contentTypeDefault() {
        let form = MultipartFormData()
        #expect(form.contentType == "multipart/form-data; boundary=\(form.boundary)")
    }
}
