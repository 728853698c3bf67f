import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

/// The `InputStream` URLSession reads an ``UploadSource`` through, one piece per callback.
///
/// URLSession only streams a body from an `InputStream`; this one pulls each piece from an
/// `UploadReader` as libcurl asks for it (64 KiB at a time on Linux), so a body of any size
/// costs one buffer of memory, files are opened only when reached, and nothing is copied to
/// a temporary file. Measured on Linux (Docs/Uploads.md): as fast as `InputStream(url:)` and
/// about 4× faster than `uploadTask(with:fromFile:)`.
///
/// How FoundationNetworking (swift-corelibs-foundation) uses it, which the overrides follow:
/// - it asserts the stream is `.notOpen`, calls `open()` once, then for every libcurl read
///   callback asks `hasBytesAvailable` (`false` ends the body) and calls `read(_:maxLength:)`;
///   0 ends the body, a negative count aborts the transfer (the task fails), so a file or
///   stream that breaks its declared length can never end a body cleanly;
/// - it never calls `close()` itself; files are closed at their end, when the stream is
///   dropped, or at once by ``SharedUploadReader/close()`` from any thread (e.g. from
///   `didCompleteWithError` after a cancellation).
///
/// Not `Sendable` (FoundationNetworking makes `Stream` explicitly non-`Sendable`): it is
/// handed to one `URLRequest`. Whoever must close the body from elsewhere keeps ``reader``,
/// which is `Sendable`.
final class UploadReaderInputStream: InputStream {
    /// The locked reader; keep it to close the body from another thread.
    let reader: SharedUploadReader

    /// Streams the bytes `reader` produces.
    init(reader: SharedUploadReader) {
        self.reader = reader
        // `InputStream`'s designated initializers all need a source; this empty one is never read.
        super.init(data: Data())
    }

    /// Streams the bytes of a new reader of `source`.
    /// - Throws: ``UploadSourceError/streamAlreadyConsumed`` when `source` cannot be read again.
    convenience init(source: UploadSource) throws(UploadSourceError) {
        self.init(reader: SharedUploadReader(try source.makeReader()))
    }

    /// The ``UploadSourceError`` that stopped reading, if any.
    override var streamError: (any Error)? {
        reader.error
    }

    override var streamStatus: Stream.Status {
        reader.status
    }

    /// `true` until the body has ended, failed or been closed: FoundationNetworking ends the
    /// body when this turns `false`, and `read` reports the end or the failure first.
    override var hasBytesAvailable: Bool {
        reader.isReadable
    }

    override func open() {
        reader.open()
    }

    /// Fills `buffer` with the next piece; 0 at the end of the body, -1 when a file or stream
    /// broke its declared length or could not be read, or after ``close()``.
    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        reader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max(length, 0)))
    }

    /// Closes every open file and stream of the body; see ``SharedUploadReader/close()``.
    override func close() {
        reader.close()
    }

    #if !canImport(FoundationNetworking)
    /// No internal buffer to expose: bytes go straight from files into URLSession's buffer.
    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
        length: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }
    #endif
}
