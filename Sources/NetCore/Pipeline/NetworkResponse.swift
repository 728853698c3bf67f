import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A decoded value with the response it came from and what the request cost (MicroClient's `NetworkResponse`).
///
/// ```swift
/// let response = try await manager.response(for: GetUser(id: 42), accessToken: nil)
/// print(response.value.name, response.statusCode, response.metrics.attempts, response.metrics.duration)
/// ```
public struct NetworkResponse<Value> {
    /// The decoded value.
    public let value: Value
    /// Status, headers and URL of the response the value was decoded from.
    public let head: HTTPURLResponse
    /// NetKit's own measurements of the request.
    public let metrics: RequestMetrics

    /// Creates a response.
    public init(value: Value, head: HTTPURLResponse, metrics: RequestMetrics) {
        self.value = value
        self.head = head
        self.metrics = metrics
    }

    /// The status code.
    public var statusCode: Int { head.statusCode }

    /// The response headers.
    public var headers: [String: String] { head.stringHeaders }
}

extension NetworkResponse: Sendable where Value: Sendable {}
