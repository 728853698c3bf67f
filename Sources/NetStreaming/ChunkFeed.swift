#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A parser that is fed chunks and told when they end: `LineSplitter` and `ServerSentEventParser`.
@usableFromInline
protocol ChunkParser {
    /// Takes the next chunk of the stream.
    mutating func push(_ chunk: Data)
    /// Says that no chunk follows.
    mutating func finish()
}

/// The one loop every view shares: the base's chunks go into a parser until the base ends or fails; once the
/// parser has given out what it holds after the end (or anything failed), the view is done.
@usableFromInline
struct ChunkFeed<Base: AsyncIteratorProtocol> where Base.Element == Data {
    @usableFromInline var base: Base
    @usableFromInline var phase = Phase.reading

    /// Still reading the base; reading what the parser holds after the base ended; done (ended or failed:
    /// `next()` returns `nil` from then on).
    @usableFromInline
    enum Phase: Sendable {
        case reading
        case draining
        case done
    }

    @inlinable
    init(_ base: Base) {
        self.base = base
    }

    /// Whether the view has nothing more to give.
    @inlinable
    var isDone: Bool { phase == .done }

    /// Marks the view done after the parser failed.
    @inlinable
    mutating func fail() {
        phase = .done
    }

    /// Hands `parser` the base's next chunk, or tells it the base ended; awaits the base on the caller's actor.
    @inlinable
    mutating func feed<Parser: ChunkParser>(_ parser: inout Parser, isolation actor: isolated (any Actor)?)
        async throws(any Error)
    {
        if phase == .draining {
            phase = .done
            return
        }
        do {
            if let chunk = try await base.next(isolation: actor) {
                parser.push(chunk)
            } else {
                parser.finish()
                phase = .draining
            }
        } catch {
            phase = .done
            throw error
        }
    }
}
