import Foundation
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

@Suite("Ordered, repeatable form fields")
struct OrderedFormFieldsTests {
    @Test("fields go in the order given, a name as often as it comes, a nil value as the name alone")
    func ordered() throws {
        let body = RequestBody(formURLEncoded: [
            URLQueryItem(name: "category[]", value: "b"), URLQueryItem(name: "category[]", value: "a"),
            URLQueryItem(name: "q", value: "x y&z=1+2"), URLQueryItem(name: "flag", value: nil),
        ])
        #expect(body.contentType == "application/x-www-form-urlencoded")
        guard case .raw(let data) = body.content else {
            Issue.record("not raw bytes")
            return
        }
        #expect(String(decoding: data, as: UTF8.self) == "category%5B%5D=b&category%5B%5D=a&q=x%20y%26z%3D1%2B2&flag")
    }
}
