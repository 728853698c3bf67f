import Foundation
import NetCore
import Testing

/// `Endpoint`'s decoding on NetCore alone: from a `ReceivedResponse`, no Foundation networking type involved.
@Suite("Endpoint decoding")
struct EndpointDecodingTests {
    struct GetItem: Endpoint {
        typealias Response = Item
        var path: String { "/item" }
        var method: HTTPMethod { .get }
    }

    struct Delete: Endpoint {
        typealias Response = EmptyResponse
        var path: String { "/item" }
        var method: HTTPMethod { .delete }
    }

    struct Update: Endpoint {
        typealias Response = StatusCodeResponse
        var path: String { "/item" }
        var method: HTTPMethod { .put }
    }

    func response(_ body: String?, fields: [(name: String, value: String)] = [("X-Total", "3")]) throws
        -> ReceivedResponse
    {
        ReceivedResponse(
            head: HTTPResponseHead(statusCode: 200, reasonPhrase: "OK", headerFields: try HTTPHeaderFields(fields)),
            body: body.map { Data($0.utf8) }
        )
    }

    @Test("JSON decodes with the request's decoder, or the one given")
    func json() throws {
        #expect(try GetItem().decode(try response(#"{"id":1,"name":"a"}"#), decoder: nil) == Item(id: 1, name: "a"))
        let snake = JSONDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        struct Named: Decodable, Equatable { let itemName: String }
        struct GetNamed: Endpoint {
            typealias Response = Named
            var path: String { "/x" }
            var method: HTTPMethod { .get }
        }
        #expect(throws: DecodingError.self) { try GetNamed().decode(try response(#"{"item_name":"n"}"#), decoder: nil) }
        #expect(try GetNamed().decode(try response(#"{"item_name":"n"}"#), decoder: snake) == Named(itemName: "n"))
    }

    @Test("an empty or absent body is NetworkError.emptyResponse")
    func empty() throws {
        #expect(throws: NetworkError.emptyResponse) { try GetItem().decode(try response(""), decoder: nil) }
        #expect(throws: NetworkError.emptyResponse) { try GetItem().decode(try response(nil), decoder: nil) }
    }

    @Test("EmptyResponse ignores any payload")
    func emptyResponse() throws {
        #expect(try Delete().decode(try response("not json"), decoder: nil) == EmptyResponse())
        #expect(try Delete().decode(try response(nil), decoder: JSONDecoder()) == EmptyResponse())
    }

    @Test("StatusCodeResponse copies the status and the fields, every Set-Cookie apart")
    func statusCodeResponse() throws {
        let value = try Update().decode(
            try response(nil, fields: [("X-Total", "3"), ("Set-Cookie", "a=1; Path=/"), ("Set-Cookie", "b=2, c")]),
            decoder: nil
        )
        #expect(value.statusCode == 200)
        #expect(value.headers["X-Total"] == "3")
        #expect(value.headerFields.values(for: "set-cookie") == ["a=1; Path=/", "b=2, c"])
    }
}
