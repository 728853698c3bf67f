import Testing
import NetCore

@Suite("Form URL encoding")
struct FormURLEncodingTests {
    @Test("fields are sorted and + & = space are percent-encoded")
    func encodesReservedCharacters() {
        let encoded = FormURLEncoding.encode(["b": "1 + 1 = 2", "a": "x&y", "ключ": "значение"])
        #expect(
            encoded
                == "a=x%26y&b=1%20%2B%201%20%3D%202&%D0%BA%D0%BB%D1%8E%D1%87=%D0%B7%D0%BD%D0%B0%D1%87%D0%B5%D0%BD%D0%B8%D0%B5"
        )
    }

    @Test("an empty form is an empty string")
    func empty() {
        #expect(FormURLEncoding.encode([:]) == "")
    }
}
