import Foundation
import NetCore

/// One request of the event checks: any method and path, its body read as bytes, with the retry policy, timeout and
/// header fields the check gives it.
struct EventProbe: Endpoint {
    typealias Response = Data
    var path: String
    var requestMethod: HTTPRequestMethod = .get
    var retries = 0
    var timeout: Duration?
    var headers: [String: String]?
    var body: RequestBody?
    // EKNetwork's method; `requestMethod` is the one that goes out.
    var method: HTTPMethod { .get }
    var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: retries, delay: 0, jitter: .none) }
}
