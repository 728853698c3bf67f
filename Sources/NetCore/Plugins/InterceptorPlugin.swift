#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// MicroClient's interceptors as a plugin: a closure that may rewrite every request before it is sent, and one
/// that may inspect every response and throw.
///
/// ```swift
/// let tenant = InterceptorPlugin(request: { request in
///     var request = request
///     try request.setHeader("X-Tenant", "acme")
///     return request
/// })
/// ```
public struct InterceptorPlugin: Plugin {
    private let request: (@Sendable (TransportRequest) async throws -> TransportRequest)?
    private let response: (@Sendable (ReceivedResponse) async throws -> Void)?

    /// Creates the plugin: `request` runs once per request (MicroClient's `interceptor`), `response` once per
    /// response, before NetKit judges its status.
    public init(
        request: (@Sendable (TransportRequest) async throws -> TransportRequest)? = nil,
        response: (@Sendable (ReceivedResponse) async throws -> Void)? = nil
    ) {
        self.request = request
        self.response = response
    }

    /// Runs the request interceptor.
    public func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
        try await self.request?(request) ?? request
    }

    /// Runs the response interceptor; its error fails the attempt.
    public func verify(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async throws
        -> PluginVerdict
    {
        try await self.response?(response)
        return .accept
    }
}
