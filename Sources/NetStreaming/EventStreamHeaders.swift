import NetCore

/// Asks for an event stream (`Accept: text/event-stream`, no caches) and says where the last connection
/// stopped (`Last-Event-ID`), as the WHATWG standard's event source does.
struct EventStreamHeaders: Plugin {
    let lastEventID: String?

    /// Before the other plugins, so that logging sees the headers.
    var priority: PluginPriority { .high }

    func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
        var request = request
        try request.setHeader("Accept", "text/event-stream")
        try request.setHeader("Cache-Control", "no-cache")
        if let lastEventID, !lastEventID.isEmpty {
            try request.setHeader("Last-Event-ID", lastEventID)
        } else {
            request.removeHeader("Last-Event-ID")
        }
        return request
    }
}
