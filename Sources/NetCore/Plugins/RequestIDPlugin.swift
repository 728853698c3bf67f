#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Tags every request with an identifier in a header (default `X-Request-ID`), the same for all its attempts,
/// so the server's logs and yours can be joined. A request that sets the header keeps its own.
///
/// The header is marked as a correlation field (``TransportRequest/markCorrelationHeader(_:)``): identical requests
/// in flight still share one call when the engine coalesces them. The server then sees the identifier of the request
/// that started the call; each caller's plugins see its own.
public struct RequestIDPlugin: Plugin {
    /// The header the identifier goes in.
    public let headerName: String
    private let makeIdentifier: @Sendable () -> String

    /// Creates the plugin; `makeIdentifier` defaults to a random UUID.
    public init(
        headerName: String = "X-Request-ID", makeIdentifier: @escaping @Sendable () -> String = { UUID().uuidString }
    ) {
        self.headerName = headerName
        self.makeIdentifier = makeIdentifier
    }

    /// Runs early, so that logging plugins see the identifier.
    public var priority: PluginPriority { .high }

    /// Adds the header once per request, marked as a correlation field.
    public func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
        var request = request
        request.markCorrelationHeader(headerName)
        guard request.value(forHeader: headerName) == nil else { return request }
        try request.setHeader(headerName, makeIdentifier())
        return request
    }
}
