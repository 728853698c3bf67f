import NetCore

/// Asks for the bytes a download still needs: `Range` and `If-Range` when it resumes, and always
/// `Accept-Encoding: identity`, since byte offsets count the resource's own bytes, which a content coding the
/// transport undoes would shift.
struct DownloadRangeHeaders: Plugin {
    let ask: DownloadStateMachine.Ask

    /// Before the other plugins, so that logging sees the headers.
    var priority: PluginPriority { .high }

    func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
        var request = request
        try request.setHeader("Accept-Encoding", "identity")
        switch ask {
        case .whole:
            request.removeHeader("Range")
            request.removeHeader("If-Range")
        case .rest(let offset, let ifRange):
            try request.setHeader("Range", "bytes=\(offset)-")
            try request.setHeader("If-Range", ifRange)
        }
        return request
    }
}
