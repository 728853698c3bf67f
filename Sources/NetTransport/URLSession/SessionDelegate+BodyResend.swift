import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

extension SessionDelegate {
    /// Whether a request's body may be sent a second time within one task, when libcurl asks for it again.
    ///
    /// libcurl sends a request on a kept-alive connection; when the server closes that connection without answering,
    /// libcurl sends the request again on a new one, and asks FoundationNetworking to rewind the body, which asks the
    /// session delegate for a new body stream (`needNewBodyStream`). Without one, the request goes out with its
    /// headers and no body and waits, spinning a core, until its idle timeout (measured on Linux, Swift 6.3.1).
    /// A stream of a body that can be read again is given for an idempotent request; any other request is stopped
    /// at once with ``TransportError/Kind/connectionReset``: a request that is not idempotent is never sent twice
    /// (the first may have reached the server), and a body in memory cannot be handed over again (answering with a
    /// stream for it crashes FoundationNetworking).
    enum BodyResend: Sendable {
        /// No body: nothing to rewind.
        case nothingToSend
        /// A fresh stream of the body and the reader to close with the transfer.
        case stream(@Sendable () -> (stream: InputStream, reader: SharedUploadReader)?)
        /// The body cannot be sent again, for this reason.
        case refuse(String)

        init(for request: TransportRequest) {
            let idempotent = request.method.isIdempotent || request.value(forHeader: "Idempotency-Key") != nil
            guard idempotent else {
                self = .refuse(
                    "the server closed the kept-alive connection without answering, and the request, which is not "
                        + "idempotent, would have been sent again (it may have reached the server)")
                return
            }
            guard let source = request.body, source.inMemoryData == nil, source.isReplayable else {
                self = .refuse(
                    "the server closed the kept-alive connection without answering, and URLSession cannot send this "
                        + "request's body again on a new connection")
                return
            }
            self = .stream {
                guard let stream = try? UploadReaderInputStream(source: source) else { return nil }
                return (stream, stream.reader)
            }
        }
    }
}
