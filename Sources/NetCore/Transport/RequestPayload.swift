import Foundation
import NetMultipart

/// The bytes a transport sends as a request body.
public enum RequestPayload: Sendable {
    /// No body.
    case empty
    /// A body held in memory; it can be sent again.
    case data(Data)
    /// A body read from a stream by one attempt; it cannot be sent again.
    case stream(UploadStream)
    /// A body of memory, files and streams, read piece by piece as the transport sends it; it can
    /// be sent again unless it holds a one-shot stream (``UploadSource/isReplayable``).
    case source(UploadSource)

    /// Whether a second attempt can send the same bytes: retries and token refresh depend on it.
    public var isReplayable: Bool {
        switch self {
        case .empty, .data: true
        case .stream: false
        case .source(let source): source.isReplayable
        }
    }

    /// The body's size in bytes, when known before sending.
    public var knownLength: Int64? {
        switch self {
        case .empty: 0
        case .data(let data): Int64(data.count)
        case .stream(let stream): stream.length
        case .source(let source): source.length
        }
    }
}
