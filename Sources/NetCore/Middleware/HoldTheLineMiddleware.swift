/// Makes requests wait while a ``HoldTheLine`` is held.
public struct HoldTheLineMiddleware: Middleware {
    /// The line requests wait at.
    public let line: HoldTheLine

    /// Waits at `line`.
    public init(_ line: HoldTheLine) {
        self.line = line
    }

    /// Waits until the line is open, then sends.
    public func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        try await line.waitUntilOpen()
        return try await next(request)
    }
}
