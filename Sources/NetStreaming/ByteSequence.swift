#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The bytes of a stream of `Data` chunks, one `UInt8` per element, in arrival order.
///
/// For code written against EKNetwork's `bytes`. Each byte is read from the current chunk synchronously;
/// the iterator awaits the base only for the next chunk, and stays on the caller's actor
/// (`next(isolation:)`). Still, one element per byte costs a call per byte: parse lines, NDJSON or events
/// with the views made for them, which scan whole chunks. After an error, or the end, `next()` returns `nil`.
///
/// ```swift
/// var count = 0
/// for try await _ in ByteSequence(body) { count += 1 }
/// ```
public struct ByteSequence<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// A byte.
    public typealias Element = UInt8
    /// The base's error.
    public typealias Failure = any Error

    @usableFromInline let base: Base

    /// Reads the bytes of `base`.
    @inlinable
    public init(_ base: Base) {
        self.base = base
    }

    /// Starts reading the base.
    @inlinable
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator())
    }

    /// Reads the bytes of one pass over the base.
    public struct AsyncIterator: AsyncIteratorProtocol {
        @usableFromInline var base: Base.AsyncIterator
        @usableFromInline var bytes: [UInt8] = []
        @usableFromInline var index = 0
        @usableFromInline var done = false

        @inlinable
        init(base: Base.AsyncIterator) {
            self.base = base
        }

        /// The next byte, or `nil` at the end.
        @inlinable
        public mutating func next() async throws -> UInt8? {
            try await next(isolation: nil)
        }

        /// The next byte, or `nil` at the end, awaiting the base (for the next chunk only) on the caller's
        /// actor.
        @inlinable @inline(__always)
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> UInt8? {
            while true {
                if index < bytes.count {
                    defer { index += 1 }
                    return bytes[index]
                }
                guard try await receive(isolation: actor) else { return nil }
            }
        }

        /// Replaces the consumed chunk with the base's next non-empty one; false at the end.
        @inlinable
        mutating func receive(isolation actor: isolated (any Actor)?) async throws(any Error) -> Bool {
            while !done {
                do {
                    guard let chunk = try await base.next(isolation: actor) else {
                        done = true
                        break
                    }
                    guard !chunk.isEmpty else { continue }
                    bytes.removeAll(keepingCapacity: true)
                    chunk.withUnsafeBytes { raw in
                        raw.withMemoryRebound(to: UInt8.self) { bytes.append(contentsOf: $0) }
                    }
                    index = 0
                    return true
                } catch {
                    done = true
                    bytes = []
                    index = 0
                    throw error
                }
            }
            bytes = []
            index = 0
            return false
        }
    }
}

extension ByteSequence: Sendable where Base: Sendable {}
