import Foundation
import NetCore

/// A request whose answer is only its status.
struct Ping: Endpoint {
    typealias Response = StatusCodeResponse
    var path = "/x"
    var method: HTTPMethod { .get }
}
