import Testing
@testable import NetCore

@Suite("Header validation")
struct HeaderValidationTests {
    @Test(
        "values with CR, LF, CRLF or NUL are rejected",
        arguments: ["a\rb", "a\nb", "a\r\nb", "\r\n", "a\u{0}b", "x\r\nX-Injected: 1"])
    func rejectsLineBreaksInValues(value: String) {
        #expect(!HeaderValidation.isValidValue(value))
        #expect(throws: NetworkError.invalidHeader(name: "X-Test")) {
            try HeaderValidation.validate(name: "X-Test", value: value)
        }
    }

    @Test("names must be RFC 9110 tokens", arguments: ["", "X Test", "X:Test", "X\r\nY", "Ü", "X(Test)", "X\"Y"])
    func rejectsInvalidNames(name: String) {
        #expect(!HeaderValidation.isValidName(name))
    }

    @Test(
        "ordinary names and values pass",
        arguments: [("X-Request-ID", "abc-123"), ("Accept", "*/*"), ("X-Tab", "a\tb"), ("X-UTF8", "ünïcode")])
    func acceptsOrdinaryHeaders(name: String, value: String) throws {
        try HeaderValidation.validate(name: name, value: value)
    }

    @Test("the error names the header printably and never carries the value")
    func errorIsPrintable() {
        #expect(throws: NetworkError.invalidHeader(name: "X\\r\\nY")) {
            try HeaderValidation.validate(name: "X\r\nY", value: "secret")
        }
        #expect(!NetworkError.invalidHeader(name: "Authorization").description.contains("secret"))
    }
}
