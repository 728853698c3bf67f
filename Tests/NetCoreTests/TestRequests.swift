import Foundation
import NetCore

/// A request whose every requirement can be set from a test.
struct ConfigurableRequest: Endpoint {
    typealias Response = EmptyResponse
    var path = "/items"
    var method: HTTPMethod = .post
    var headers: [String: String]?
    var queryParameters: [String: String]?
    var contentType = "application/json"
    var body: RequestBody?
    var headerFields = HTTPHeaderFields()
}

struct Item: Codable, Equatable, Sendable {
    let id: Int
    let name: String
}
