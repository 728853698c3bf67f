import HTTPTypes
import OpenAPIRuntime

/// Reads `Authorization: Bearer …` and runs the handler with ``BearerToken/current`` set.
package struct BearerTokenMiddleware: ServerMiddleware {
    /// A middleware.
    package init() {}

    /// Sets ``BearerToken/current`` for the rest of the chain.
    package func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let token = request.headerFields[.authorization].flatMap { value -> String? in
            let prefix = "bearer "
            guard value.lowercased().hasPrefix(prefix) else { return nil }
            return String(value.dropFirst(prefix.count))
        }
        return try await BearerToken.$current.withValue(token) {
            try await next(request, body, metadata)
        }
    }
}
