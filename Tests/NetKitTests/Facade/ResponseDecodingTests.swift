import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import NetKit

@Suite("EKNetwork response decoding")
struct ResponseDecodingTests {
    struct Item: Codable, Equatable, Sendable {
        let id: Int
        let name: String
    }

    let response = HTTPURLResponse(
        url: URL(string: "https://x.test")!, statusCode: 200, httpVersion: nil, headerFields: ["X-Total": "3"])!

    struct GetItem: NetworkRequest {
        typealias Response = Item
        var path: String { "/item" }
        var method: HTTPMethod { .get }
    }

    struct Delete: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/item" }
        var method: HTTPMethod { .delete }
    }

    struct Update: NetworkRequest {
        typealias Response = StatusCodeResponse
        var path: String { "/item" }
        var method: HTTPMethod { .put }
    }

    struct Custom: NetworkRequest {
        struct Meta: Decodable, Equatable {
            let status: Int
            let total: String?
        }
        typealias Response = Meta
        var path: String { "/item" }
        var method: HTTPMethod { .head }
        var emptyResponseHandler: ((HTTPURLResponse) throws -> Meta)? {
            { Meta(status: $0.statusCode, total: $0.value(forHTTPHeaderField: "X-Total")) }
        }
    }

    struct SnakeCase: NetworkRequest {
        struct Value: Decodable, Equatable { let itemName: String }
        typealias Response = Value
        var path: String { "/x" }
        var method: HTTPMethod { .get }
        var jsonDecoder: JSONDecoder {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return decoder
        }
    }

    @Test("JSON bodies decode with the request's decoder")
    func json() throws {
        #expect(
            try GetItem().decodeResponse(data: Data(#"{"id":1,"name":"a"}"#.utf8), response: response)
                == Item(id: 1, name: "a"))
        #expect(
            try SnakeCase().decodeResponse(data: Data(#"{"item_name":"n"}"#.utf8), response: response)
                == .init(itemName: "n"))
    }

    @Test("an empty body without handler is NetworkError.emptyResponse")
    func emptyWithoutHandler() {
        #expect(throws: NetworkError.emptyResponse) { try GetItem().decodeResponse(data: Data(), response: response) }
    }

    @Test("undecodable JSON is a DecodingError")
    func undecodable() {
        #expect(throws: DecodingError.self) { try GetItem().decodeResponse(data: Data("{}".utf8), response: response) }
    }

    @Test("EmptyResponse ignores any payload")
    func emptyResponse() throws {
        #expect(try Delete().decodeResponse(data: Data(), response: response) == EmptyResponse())
        #expect(try Delete().decodeResponse(data: Data("not json".utf8), response: response) == EmptyResponse())
        #expect(
            try Delete().decodeResponse(data: Data("x".utf8), response: response, decoder: JSONDecoder())
                == EmptyResponse())
    }

    @Test("StatusCodeResponse copies status and headers")
    func statusCodeResponse() throws {
        let value = try Update().decodeResponse(data: Data(), response: response)
        #expect(value.statusCode == 200)
        #expect(value.headers["X-Total"] == "3")
    }

    @Test("a custom emptyResponseHandler builds the value from metadata")
    func customHandler() throws {
        #expect(try Custom().decodeResponse(data: Data(), response: response) == .init(status: 200, total: "3"))
    }

    @Test("a given decoder replaces the request's")
    func globalDecoder() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        struct Plain: NetworkRequest {
            typealias Response = SnakeCase.Value
            var path: String { "/x" }
            var method: HTTPMethod { .get }
        }
        #expect(throws: DecodingError.self) {
            try Plain().decodeResponse(data: Data(#"{"item_name":"n"}"#.utf8), response: response)
        }
        #expect(
            try Plain().decodeResponse(data: Data(#"{"item_name":"n"}"#.utf8), response: response, decoder: decoder)
                == .init(itemName: "n"))
    }
}
