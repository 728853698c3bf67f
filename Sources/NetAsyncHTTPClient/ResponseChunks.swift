#if AsyncHTTPClient
import AsyncHTTPClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore
import NIOCore
import NIOFoundationCompat

/// An AsyncHTTPClient response body as the `Data` chunks a ``ResponseBody`` reads.
///
/// A ``BodyPump`` reads AsyncHTTPClient's buffers ahead of the consumer into at most ``BodyPump/bufferLimit`` bytes
/// (small ones joined, large ones handed over without a copy), and stops reading while that much waits: a slow
/// consumer holds the connection still, and a body of a million one-byte chunks costs neither a million rounds nor
/// memory per chunk. Errors are translated (a body cut short ends with ``TransportError/Kind/connectionLost``, a
/// cancelled consumer with `CancellationError`). It holds the transport's own client, if any, so that dropping the
/// transport does not shut the client down under a running body. With an idle timeout, each wait for a buffer is
/// bounded by it (see ``BodyRead``).
struct ResponseChunks: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error

    let body: HTTPClientResponse.Body
    /// Where bytes received are reported, if anyone listens.
    let progress: NetworkProgress?
    /// The declared `Content-Length`, the total of progress.
    let expectedLength: Int64?
    /// The longest wait for a buffer; `nil`: the client's read timeout alone.
    let idleTimeout: Duration?
    /// The request's authority, for the host an error names (computed only then).
    let authority: String
    let keepAlive: OwnedClient?

    func makeAsyncIterator() -> Iterator {
        Iterator(
            reader: Reader(
                BodyPump(
                    body: body, progress: progress, expectedLength: expectedLength, idleTimeout: idleTimeout,
                    authority: authority, keepAlive: keepAlive)))
    }

    /// The iterator's hold on its pump: when the iterator goes away, the pump stops (and the transfer with it).
    final class Reader: Sendable {
        let pump: BodyPump

        init(_ pump: BodyPump) {
            self.pump = pump
        }

        deinit {
            pump.close()
        }
    }

    struct Iterator: AsyncIteratorProtocol {
        typealias Element = Data
        typealias Failure = any Error

        let reader: Reader

        mutating func next() async throws -> Data? {
            try await reader.pump.next()
        }
    }
}

/// Reads a whole response body into memory, for a caller that would only gather the chunks again
/// (``TransportRequest/wholeBody``): one buffer, one `Data`, no chunk handed through ``ResponseBody``.
enum WholeBody {
    /// The body, at most `limit` + 1 bytes of it: past the limit reading stops and the transfer is cancelled
    /// (dropping the iterator does that), so the caller sees a body longer than it keeps without it all arriving.
    /// - Throws: AsyncHTTPClient's error, untranslated.
    static func collect(
        _ body: HTTPClientResponse.Body,
        limit: Int,
        progress: NetworkProgress?,
        expectedLength: Int64?,
        idleTimeout: Duration?
    ) async throws -> Data {
        let keep = limit == .max ? limit : limit + 1
        var iterator = body.makeAsyncIterator()
        var collected: ByteBuffer?
        var received: Int64 = 0
        let wait = BodyRead.waiter(for: idleTimeout)
        while var buffer = try await BodyRead.next(&iterator, within: idleTimeout, using: wait) {
            guard buffer.readableBytes > 0 else { continue }
            received += Int64(buffer.readableBytes)
            progress?.reportReceived(received, of: expectedLength)
            let room = keep - (collected?.readableBytes ?? 0)
            if buffer.readableBytes > room, let prefix = buffer.getSlice(at: buffer.readerIndex, length: room) {
                buffer = prefix
            }
            if collected == nil {
                // Most small bodies arrive in one buffer, which becomes the body as it is.
                collected = buffer
            } else {
                collected!.writeImmutableBuffer(buffer)
            }
            if collected!.readableBytes >= keep { break }
        }
        guard let collected else { return Data() }
        return Data(buffer: collected, byteTransferStrategy: .automatic)
    }
}

/// Waits for the next buffer of a response body, for at most a request's idle timeout.
///
/// AsyncHTTPClient's own read timeout belongs to the client, not to a request, and its deadline ends at the head;
/// so a request's ``TransportRequest/idleTimeout`` is kept here, with NetCore's ``DeadlineWait``: when the time runs
/// out the wait is cancelled, which makes AsyncHTTPClient cancel the request and close its connection. Without an
/// idle timeout the buffer is awaited directly: no task, no timer.
enum BodyRead {
    /// The error of a body that stood still for the idle timeout; the transport says it as a
    /// ``TransportError/Kind/timedOut``.
    struct IdleTimeout: Error {}

    /// The waiter a body's reads share: `nil` without an idle timeout, when nothing needs timing.
    static func waiter(for idleTimeout: Duration?) -> DeadlineWait? {
        guard let idleTimeout, idleTimeout > .zero else { return nil }
        return DeadlineWait()
    }

    /// The next buffer, waited for with `wait` (the body's one timer, from ``waiter(for:)``) for at most
    /// `idleTimeout`.
    static func next(
        _ iterator: inout HTTPClientResponse.Body.AsyncIterator, within idleTimeout: Duration?,
        using wait: DeadlineWait?
    ) async throws -> ByteBuffer? {
        guard let idleTimeout, idleTimeout > .zero, let wait else { return try await iterator.next() }
        do {
            return try await wait.next(&iterator, until: .now + idleTimeout)
        } catch is DeadlineWait.Expired {
            throw IdleTimeout()
        }
    }
}
#endif
