import Foundation
import NetCore

/// A response body read through: every chunk the caller reads is handed on unchanged and recorded (its size, its
/// time after the head, its bytes), and the body's end or error ends the exchange's entry.
struct HARRecorderTee: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error

    let base: ResponseBody
    let exchange: HARRecorderExchange
    let body: HARRecorderBody

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), exchange: exchange, body: body)
    }

    /// Reads the wrapped body for the caller.
    struct Iterator: AsyncIteratorProtocol {
        var base: ResponseBody.AsyncIterator
        let exchange: HARRecorderExchange
        let body: HARRecorderBody

        mutating func next() async throws -> Data? {
            try await next(isolation: nil)
        }

        mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Data? {
            let chunk: Data?
            do {
                chunk = try await base.next(isolation: actor)
            } catch {
                exchange.bodyEnded(error: error)
                throw error
            }
            guard let chunk else {
                exchange.bodyEnded(error: nil)
                return nil
            }
            body.append(chunk, at: exchange.timeSinceHead())
            return chunk
        }
    }
}
