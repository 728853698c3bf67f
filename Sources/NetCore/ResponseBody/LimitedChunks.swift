#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A body that ends with ``NetworkError/responseTooLarge(limitBytes:)`` once more than `limit` bytes have come: the
/// chunk that passes the limit is not handed over, and the transfer stops at once (a caller that still holds the
/// body would otherwise keep it running). What came before is handed over as it came.
struct LimitedChunks: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error

    let base: ResponseBody
    let limit: Int

    func makeAsyncIterator() -> Iterator {
        Iterator(body: base, base: base.makeAsyncIterator(), limit: limit)
    }

    struct Iterator: AsyncIteratorProtocol {
        /// The body read, whose transfer stops at the limit.
        let body: ResponseBody
        var base: ResponseBody.AsyncIterator
        let limit: Int
        var received = 0

        mutating func next() async throws -> Data? {
            guard let chunk = try await base.next() else { return nil }
            guard chunk.count <= limit - received else {
                body.abandon()
                throw NetworkError.responseTooLarge(limitBytes: limit)
            }
            received += chunk.count
            return chunk
        }
    }
}
