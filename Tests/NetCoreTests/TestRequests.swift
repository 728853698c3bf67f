import Foundation
import NetCore
import NetMultipart

/// A request whose every requirement can be set from a test.
struct ConfigurableRequest: NetworkRequest {
    typealias Response = EmptyResponse
    var path = "/items"
    var method: HTTPMethod = .post
    var headers: [String: String]?
    var queryParameters: [String: String]?
    var contentType = "application/json"
    var body: RequestBody?
    var multipartData: MultipartFormData?
}

struct Item: Codable, Equatable, Sendable {
    let id: Int
    let name: String
}
