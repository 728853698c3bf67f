#if OpenAPI
import Foundation  // InputStream: not in FoundationEssentials
import OpenAPIRuntime

/// A generated client's streamed request body as the `InputStream` NetKit's ``UploadSource`` sends from: the
/// transport's reads take what ``BodyPipe`` has queued.
///
/// Not `Sendable` (Foundation makes `Stream` explicitly non-`Sendable`): it is handed to one ``UploadSource``,
/// whose reader alone uses it.
final class HTTPBodyInputStream: InputStream {
    private let pipe: BodyPipe

    init(body: HTTPBody) {
        self.pipe = BodyPipe(body: body)
        // `InputStream`'s designated initializers all need a source; this empty one is never read.
        super.init(data: Data())
    }

    deinit {
        pipe.close()
    }

    override func open() {
        pipe.open()
    }

    override var streamStatus: Stream.Status {
        pipe.status
    }

    override var streamError: (any Error)? {
        pipe.error
    }

    override var hasBytesAvailable: Bool {
        pipe.isReadable
    }

    /// The next queued bytes, waiting for some; 0 at the end of the body, -1 when iterating it failed or after
    /// ``close()``.
    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        pipe.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max(length, 0)))
    }

    override func close() {
        pipe.close()
    }

    #if !canImport(FoundationNetworking)
    /// No buffer of its own to expose.
    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
        length: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }
    #endif
}
#endif
