import Foundation
import NetMultipart

/// The bytes a transport sends as a request body.
public enum RequestPayload: Sendable {
    /// No body.
    case empty
    /// A body held in memory; it can be sent again.
    case data(Data)
    /// A body of memory, files and streams, read piece by piece as the transport sends it; it can
    /// be sent again unless it holds a one-shot stream (``UploadSource/isReplayable``).
    case source(UploadSource)

    /// Whether a second attempt can send the same bytes: retries and token refresh depend on it.
    public var isReplayable: Bool {
        switch self {
        case .empty, .data: true
        case .source(let source): source.isReplayable
        }
    }

    /// The body's size in bytes, when known before sending: the `Content-Length` transports send and the
    /// total of upload progress. `nil` only for a stream of unknown length, which goes out chunked.
    public var knownLength: Int64? {
        switch self {
        case .empty: 0
        case .data(let data): Int64(data.count)
        case .source(let source): source.length
        }
    }

    /// Whether a one-shot stream of the body was already taken by an earlier send, so the body cannot be
    /// produced again.
    public var isConsumed: Bool {
        guard case .source(let source) = self else { return false }
        return source.segments.contains { segment in
            if case .stream(let stream, _) = segment { stream.isTaken } else { false }
        }
    }
}
