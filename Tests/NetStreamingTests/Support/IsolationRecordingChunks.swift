import Foundation
import NetKitLock

/// Chunks in memory whose iterator records how it was asked for each chunk: with the caller's isolation
/// (`next(isolation:)`, and on which actor) or without (`next()`, which would hop off the caller's actor).
struct IsolationRecordingChunks: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error

    final class Log: Sendable {
        let calls = Lock<[String]>([])
        func record(_ call: String) { calls.withLock { $0.append(call) } }
        var all: [String] { calls.withLock { $0 } }
    }

    let chunks: [Data]
    let log: Log

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: chunks, log: log) }

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: [Data]
        let log: Log
        var index = 0

        mutating func next() async throws -> Data? {
            log.record("next()")
            return advance()
        }

        mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Data? {
            let onMain = actor.map { ObjectIdentifier($0) == ObjectIdentifier(MainActor.shared) } ?? false
            log.record(onMain ? "next(isolation: main)" : "next(isolation: other)")
            return advance()
        }

        private mutating func advance() -> Data? {
            guard index < chunks.count else { return nil }
            defer { index += 1 }
            return chunks[index]
        }
    }
}
