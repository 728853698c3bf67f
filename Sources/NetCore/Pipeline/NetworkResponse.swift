#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
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
    /// Status, reason and header fields of the response the value was decoded from.
    public let head: HTTPResponseHead
    private let origin: ResponseOrigin
    /// NetKit's own measurements of the request.
    public let metrics: RequestMetrics

    /// Creates a response.
    public init(value: Value, head: HTTPResponseHead, url: URL? = nil, metrics: RequestMetrics) {
        self.value = value
        self.head = head
        self.origin = .url(url)
        self.metrics = metrics
    }

    /// The value of `received`, with the engine's measurements.
    package init(value: Value, received: ReceivedResponse, origin: ResponseOrigin, metrics: RequestMetrics) {
        self.value = value
        self.head = received.head
        self.origin = origin
        self.metrics = metrics
    }

    /// The URL that answered: the request's, or where redirects led.
    public var url: URL? { origin.url }

    /// The status code.
    public var statusCode: Int { head.statusCode }

    /// The response headers (repeated names joined, see ``HTTPHeaderFields/dictionary``).
    public var headers: [String: String] { head.headerFields.dictionary }

    /// The response's header fields, repeated ones (every `Set-Cookie`) apart.
    public var headerFields: HTTPHeaderFields { head.headerFields }
}

extension NetworkResponse: Sendable where Value: Sendable {}
