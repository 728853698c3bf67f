#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NetCore
import NIOCore
import NIOFoundationCompat

/// An AsyncHTTPClient response body as the `Data` chunks a ``ResponseBody`` reads, pulled one at a time.
///
/// Nothing is buffered here: each `next()` asks AsyncHTTPClient's body for its next buffer, and AsyncHTTPClient
/// reads from the socket only while its small buffer has room, so a slow consumer holds the connection still.
/// Large buffers become `Data` without a copy. Errors are translated (a body cut short ends with
/// `URLError(.networkConnectionLost)`, a cancelled consumer with `CancellationError`). It holds the transport's
/// own client, if any, so that dropping the transport does not shut the client down under a running body.
struct ResponseChunks: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error

    let body: HTTPClientResponse.Body
    /// Download progress, for a request without a body (as the URLSession transport reports it).
    let progress: NetworkProgress?
    /// The declared `Content-Length`, or -1.
    let expectedLength: Int64
    let keepAlive: OwnedClient?

    func makeAsyncIterator() -> Iterator {
        Iterator(base: body.makeAsyncIterator(), progress: progress, expectedLength: expectedLength, keepAlive: keepAlive)
    }

    struct Iterator: AsyncIteratorProtocol {
        typealias Element = Data
        typealias Failure = any Error

        var base: HTTPClientResponse.Body.AsyncIterator
        let progress: NetworkProgress?
        let expectedLength: Int64
        let keepAlive: OwnedClient?
        var received: Int64 = 0

        mutating func next() async throws -> Data? {
            do {
                // Each round takes a buffer or ends; AsyncHTTPClient yields empty buffers rarely, if ever.
                while let buffer = try await base.next() {
                    guard buffer.readableBytes > 0 else { continue }
                    if let progress {
                        received += Int64(buffer.readableBytes)
                        progress.report(completed: received, of: expectedLength)
                    }
                    return Data(buffer: buffer, byteTransferStrategy: .automatic)
                }
                return nil
            } catch {
                throw TransportErrorTranslation.translate(error, phase: .body, taskIsCancelled: Task.isCancelled)
            }
        }
    }
}
#endif
