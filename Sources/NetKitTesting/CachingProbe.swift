import Foundation
import NetCore

/// One request of the caching checks: any method, path and header fields, its body read as bytes, never retried
/// (a retry would hide what the cache did with a failure).
struct CachingProbe: Endpoint {
    typealias Response = Data
    var path: String
    var requestMethod: HTTPRequestMethod = .get
    var headers: [String: String]?
    // EKNetwork's method; `requestMethod` is the one that goes out.
    var method: HTTPMethod { .get }
    var allowsRetry: Bool { false }
}
