/// Declares JSON: `Accept: application/json` and, on a request with a body, `Content-Type: application/json`,
/// wherever the request has not set its own (SmartNetwork's `JSONHeaders`).
public struct JSONHeadersPlugin: Plugin {
    /// Creates the plugin.
    public init() {}

    /// Adds the headers the request lacks.
    public func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
        var request = request
        if request.value(forHeader: "Accept") == nil { try request.setHeader("Accept", "application/json") }
        if request.bodyLength != 0, request.value(forHeader: "Content-Type") == nil {
            try request.setHeader("Content-Type", "application/json")
        }
        return request
    }
}
