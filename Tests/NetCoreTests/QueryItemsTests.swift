import Foundation
import Testing
import NetCore

/// A request with ordered query items, and optionally parameters and its own base URL.
struct ItemsRequest: Endpoint {
    typealias Response = EmptyResponse
    var path = "/search"
    var method: HTTPMethod { .get }
    var queryParameters: [String: String]?
    var queryItems: [URLQueryItem]?
    var baseURL: URL?
}

@Suite("Query items and a request's own base URL")
struct QueryItemsTests {
    let base = URL(string: "https://api.example.com/v1?key=k1")!
    let builder = RequestBuilder()

    func query(_ request: ItemsRequest) throws -> String? {
        let built = try builder.makeRequest(request, baseURL: base)
        return built.head.path.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init)
    }

    @Test("items keep their order and repeated names, after the base query and the sorted parameters")
    func orderAndRepeats() throws {
        let request = ItemsRequest(
            queryParameters: ["z": "1", "a": "2"],
            queryItems: [
                URLQueryItem(name: "tag", value: "b"), URLQueryItem(name: "tag", value: "a"),
                URLQueryItem(name: "m", value: "x"),
            ]
        )
        #expect(try query(request) == "key=k1&a=2&z=1&tag=b&tag=a&m=x")
    }

    @Test("items alone follow the base query; no items and no parameters leave no trailing '?'")
    func itemsAlone() throws {
        #expect(
            try query(
                ItemsRequest(queryItems: [URLQueryItem(name: "b", value: "1"), URLQueryItem(name: "a", value: "2")]))
                == "key=k1&b=1&a=2")
        let bare = URL(string: "https://api.example.com")!
        let empty = try builder.makeRequest(ItemsRequest(queryItems: []), baseURL: bare)
        #expect(empty.head.path == "/search")
        let one = try builder.makeRequest(
            ItemsRequest(queryItems: [URLQueryItem(name: "q", value: "1")]), baseURL: bare)
        #expect(one.head.path == "/search?q=1")
    }

    @Test("names and values are percent-encoded like query parameters, so none can break the URL")
    func encoding() throws {
        let awkward = "a+b & c=d #e?f/ü\u{1}"
        let request = ItemsRequest(queryItems: [URLQueryItem(name: awkward, value: awkward)])
        let built = try builder.makeRequest(request, baseURL: URL(string: "https://api.example.com")!)
        let parameters = try builder.makeRequest(
            ItemsRequest(queryParameters: [awkward: awkward]), baseURL: URL(string: "https://api.example.com")!)
        #expect(built.head.path == parameters.head.path)
        let url = try #require(built.url)
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems
        #expect(items == [URLQueryItem(name: awkward, value: awkward)])
        #expect(url.fragment == nil)
    }

    @Test("an item without a value is sent as its name alone; an empty value keeps its '='")
    func valuelessItem() throws {
        let request = ItemsRequest(queryItems: [
            URLQueryItem(name: "flag", value: nil), URLQueryItem(name: "empty", value: ""),
        ])
        #expect(try query(request) == "key=k1&flag&empty=")
    }

    @Test("the URL builder takes the same items as the request builder")
    func urlBuilder() throws {
        let url = try RequestURLBuilder.url(
            base: base, path: "/x", query: ["s": "1"],
            queryItems: [URLQueryItem(name: "r", value: "2"), URLQueryItem(name: "r", value: "3")]
        )
        #expect(url.absoluteString == "https://api.example.com/v1/x?key=k1&s=1&r=2&r=3")
    }

    @Test("a request's own base URL replaces the engine's, its query included")
    func ownBaseURL() throws {
        let request = ItemsRequest(
            queryItems: [URLQueryItem(name: "q", value: "1")], baseURL: URL(string: "http://other.example:8080/v2")!)
        let built = try builder.makeRequest(request, baseURL: base)
        #expect(built.url?.absoluteString == "http://other.example:8080/v2/search?q=1")
    }

    @Test(
        "a request's own base URL is checked like the engine's",
        arguments: [
            ("relative/path", NetworkError.invalidBaseURL(url: "relative/path", rule: .noScheme)),
            ("mailto:someone@example.com", .invalidBaseURL(url: "…@example.com", rule: .unsupportedScheme)),
        ])
    func badOwnBaseURL(url: String, expected: NetworkError) {
        let request = ItemsRequest(baseURL: URL(string: url)!)
        #expect(throws: expected) { try builder.makeRequest(request, baseURL: base) }
    }

    @Test("a bad path still fails, naming its rule, when items are set")
    func badPath() {
        let request = ItemsRequest(path: "/../secret", queryItems: [URLQueryItem(name: "a", value: "1")])
        #expect(throws: NetworkError.invalidPath(path: "/../secret", rule: .dotSegment)) {
            try builder.makeRequest(request, baseURL: base)
        }
    }
}
