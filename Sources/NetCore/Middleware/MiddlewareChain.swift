/// A transport that runs requests through middlewares, first to last, before the wrapped transport.
public struct MiddlewareChain: HTTPTransport {
    /// The middlewares, outermost first.
    public let middlewares: [any Middleware]
    /// The transport at the end of the chain.
    public let transport: any HTTPTransport

    /// Wraps `transport` in `middlewares` (the first sees the request first and the response last).
    public init(_ middlewares: [any Middleware], transport: any HTTPTransport) {
        self.middlewares = middlewares
        self.transport = transport
    }

    /// Sends `request` through the chain.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await send(request, from: middlewares[...])
    }

    private func send(_ request: TransportRequest, from remaining: ArraySlice<any Middleware>) async throws -> TransportResponse {
        guard let first = remaining.first else { return try await transport.send(request) }
        let rest = remaining.dropFirst()
        return try await first.intercept(request) { next in try await self.send(next, from: rest) }
    }
}
