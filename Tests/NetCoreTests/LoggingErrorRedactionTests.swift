import NetCore
import Testing

@Suite("Error descriptions of unknown errors")
struct LoggingErrorRedactionTests {
    struct Quoting: Error, CustomStringConvertible {
        let description: String
    }

    @Test(
        "a URL quoted by an error NetKit does not know loses its query values, fragment and password",
        arguments: [
            (
                "failed for https://ann:pw-s3cr3t@api.test/v1/x?api_key=SECRET&q=1#access_token=tok",
                "Quoting: failed for https://api.test/v1/x?api_key=…&q=…#…"
            ),
            (
                "GET \"http://h.test:8080/p?token=SECRET\" and wss://w.test/s#frag-SECRET then done",
                "Quoting: GET \"http://h.test:8080/p?token=…\" and wss://w.test/s#… then done"
            ),
            ("no URL here: a=SECRET?", "Quoting: no URL here: a=SECRET?"),
            ("ends with a bare scheme://", "Quoting: ends with a bare scheme://"),
        ])
    func urls(text: String, expected: String) {
        #expect(LogRedaction.describe(Quoting(description: text)) == expected)
    }
}
