import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StatusCodeResponse {
    /// Creates a value from an HTTP response's metadata, as EKNetwork's `emptyResponseHandler` does.
    public init(_ response: HTTPURLResponse) {
        var headers: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            guard let key = key as? String else { continue }
            headers[key] = value as? String ?? String(describing: value)
        }
        self.init(statusCode: response.statusCode, headers: headers)
    }
}
