import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore
import NetMultipart

extension URLRequest {
    /// Puts a streamed payload on the request as its `httpBodyStream`, framed with `Content-Length` when the
    /// size is known (chunked otherwise), for sessions that take the whole request at once (mocks, custom
    /// sessions).
    /// - Throws: ``NetworkError/uploadStreamConsumed`` for a one-shot stream that was already sent.
    mutating func attachStreamedBody(of payload: RequestPayload) throws(NetworkError) {
        guard case .source(let source) = payload else { return }
        guard let stream = try? UploadReaderInputStream(source: source) else { throw .uploadStreamConsumed }
        StreamedBodyFraming.apply(length: source.length, to: &self)
        httpBodyStream = stream
    }
}
