import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

extension URLRequest {
    /// Puts `body` on the request, for sessions that take the whole request at once (mocks, custom sessions): bytes
    /// in memory as `httpBody`, anything else as its `httpBodyStream`, framed with `Content-Length` when the size
    /// is known (chunked otherwise).
    /// - Throws: ``NetworkError/uploadStreamConsumed`` for a one-shot stream that was already sent.
    mutating func attachBody(_ body: UploadSource?) throws(NetworkError) {
        guard let source = body else { return }
        if let data = source.inMemoryData {
            httpBody = data
            return
        }
        guard let stream = try? UploadReaderInputStream(source: source) else { throw .uploadStreamConsumed }
        StreamedBodyFraming.apply(length: source.length, to: &self)
        httpBodyStream = stream
    }
}
