import Foundation
import LoopbackServer
import Testing

@Suite("Form and query decoding")
struct FormAndQueryTests {
    @Test func formFieldsFollowTheWHATWGRules() {
        let request = LoopbackRequest(
            headers: [(name: "Content-Type", value: "application/x-www-form-urlencoded")],
            body: Data("name=John+Doe&city=S%C3%A3o+Paulo&empty=&flag&&a%2Bb=1%2B1&bad=%zz%4&eq=a=b".utf8)
        )

        #expect(
            pairs(request.formFields()) == [
                ["name", "John Doe"],
                ["city", "São Paulo"],
                ["empty", ""],
                ["flag", ""],
                ["a+b", "1+1"],
                ["bad", "%zz%4"],
                ["eq", "a=b"],
            ])
    }

    @Test func emptyFormBodyHasNoFields() {
        #expect(LoopbackRequest().formFields().isEmpty)
    }

    @Test func queryItemsArePercentDecodedButKeepPlus() {
        let request = LoopbackRequest(method: "GET", target: "/v1/users?a=1&b=%20&c=x+y&d&e=%E2%9C%93&a=2")

        #expect(request.path == "/v1/users")
        #expect(request.rawQuery == "a=1&b=%20&c=x+y&d&e=%E2%9C%93&a=2")
        #expect(
            pairs(request.queryItems) == [
                ["a", "1"], ["b", " "], ["c", "x+y"], ["d", ""], ["e", "✓"], ["a", "2"],
            ])
    }

    @Test(arguments: [
        ("/plain", "/plain", nil as String?),
        ("/empty?", "/empty", ""),
        ("/two?x=1?y=2", "/two", "x=1?y=2"),
        ("*", "*", nil),
    ])
    func targetSplitsAtTheFirstQuestionMark(target: String, path: String, query: String?) {
        let request = LoopbackRequest(target: target)

        #expect(request.path == path)
        #expect(request.rawQuery == query)
    }

    @Test func queryIsRecordedAsSentOverTheWire() throws {
        let server = try makeServer()
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET /s%2Fx?q=a%26b+c HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readResponse()

        let request = try #require(server.requests.first)
        #expect(request.target == "/s%2Fx?q=a%26b+c")
        #expect(request.path == "/s%2Fx")
        #expect(pairs(request.queryItems) == [["q", "a&b+c"]])
    }
}
