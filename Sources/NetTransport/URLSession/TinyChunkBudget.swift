import NetCore

/// What FoundationNetworking holds for one transfer's small chunks, as estimated from their sizes and arrival times,
/// and whether it has passed the transfer's budget: the pure decision behind ``URLSessionTransport``'s stop of a body
/// sent as a flood of tiny chunks.
///
/// Why: for every piece of body libcurl hands over (one per chunk of a chunked body), FoundationNetworking (Swift
/// 6.3.1) replaces the task's timeout timer with a new `DispatchSource`; the old one is freed once URLSession's work
/// queue gets round to it. While chunks arrive faster than that, about 336 bytes per chunk stay held until the flood
/// ends: 1,000,000 one-byte chunks held 330 MiB, 10,000,000 held 3.2 GiB, whatever NetKit's byte limits said. When
/// they come slower (10,000 to 60,000 a second, paced), nothing piles up: the memory follows what is held, not what
/// passed (`linux-facts tiny-chunks`, Docs/Linux.md).
///
/// The estimate is a leaky bucket: each chunk smaller than ``Limits/tinyBelow`` adds `(tinyBelow - size) / tinyBelow`
/// of a chunk (a 1-byte chunk almost 1, a 512-byte chunk ½, larger chunks nothing: at their size the bookkeeping is
/// a small fraction of the bytes, and reaching a flood's rate with them takes 100 MB/s or more), and
/// ``Limits/releasedPerSecond`` chunks' worth drain away each second. A stream that sends small chunks slowly (server-sent
/// events for hours) never fills it; a flood fills it in about a second.
///
/// What the stop can and cannot do: the caller gets the error at once, and NetKit keeps nothing more of the body.
/// But FoundationNetworking goes on reading until the server pauses: `URLSessionTask.cancel()` waits for URLSession's
/// work queue, which a flood keeps busy (a cancel at 100,000 chunks of a 1,000,000-chunk flood returned when the
/// flood ended, 15.6 s later), so what it holds per chunk keeps growing, and every other URLSession of the process
/// waits, until then. Only a transport that reads at its own pace (`AsyncHTTPClientTransport`) avoids both.
package struct TinyChunkBudget: Sendable, Equatable {
    /// The bounds of the estimate.
    package struct Limits: Sendable, Equatable {
        /// The memory FoundationNetworking may hold for one transfer's chunks.
        package var memoryBudget: Int
        /// What it holds per chunk while it has not caught up (measured: 336 bytes, Swift 6.3.1, libcurl 7.88.1).
        package var bytesPerChunk: Int
        /// The chunks' bookkeeping assumed freed per second: well below what FoundationNetworking freed when it was
        /// not flooded (60,000 a second on 2 busy cores), so that a busy machine still keeps up with it.
        package var releasedPerSecond: Double
        /// Chunks this size or larger cost nothing.
        package var tinyBelow: Int

        package init(memoryBudget: Int, bytesPerChunk: Int, releasedPerSecond: Double, tinyBelow: Int) {
            self.memoryBudget = memoryBudget
            self.bytesPerChunk = bytesPerChunk
            self.releasedPerSecond = releasedPerSecond
            self.tinyBelow = tinyBelow
        }

        /// 32 MiB at 336 bytes a chunk (99,864 chunks), 10,000 chunks freed a second, chunks under 1 KiB counted.
        package static let standard = Limits(
            memoryBudget: 32 << 20, bytesPerChunk: 336, releasedPerSecond: 10_000, tinyBelow: 1024)

        /// How many chunks' bookkeeping may be held at once.
        package var heldChunks: Double { Double(memoryBudget) / Double(max(1, bytesPerChunk)) }
    }

    /// What a chunk leads to.
    package enum Verdict: Sendable, Equatable {
        case within
        /// The budget is passed: the transfer must stop.
        case exceeded
    }

    package let limits: Limits
    /// The chunks' bookkeeping estimated held now (after the last chunk).
    package private(set) var held: Double = 0
    /// Chunks seen so far, of any size.
    package private(set) var chunks = 0
    /// When the last chunk came (stored as a value of known size: see `MonotonicInstant`).
    private var last: MonotonicInstant?

    package init(limits: Limits = .standard) {
        self.limits = limits
    }

    /// Counts a chunk of `size` bytes that arrived at `now`.
    package mutating func record(chunkOf size: Int, at now: ContinuousClock.Instant) -> Verdict {
        chunks += 1
        let now = MonotonicInstant(now)
        if let last, last < now {
            held = max(0, held - Self.seconds(now - last) * limits.releasedPerSecond)
        }
        last = max(last ?? now, now)
        let tiny = max(1, limits.tinyBelow)
        held += Double(max(0, tiny - size)) / Double(tiny)
        return held > limits.heldChunks ? .exceeded : .within
    }

    /// Why the transfer was stopped, in words: what, where (the caller adds the host) and why, and what to use.
    package var explanation: String {
        let mebibytes = limits.memoryBudget >> 20
        return "the server sent the body as a flood of tiny chunks (\(chunks) so far, most under "
            + "\(limits.tinyBelow) bytes): FoundationNetworking keeps about \(limits.bytesPerChunk) bytes for each until "
            + "URLSession's work queue catches up, which a flood never lets it do, so URLSessionTransport stopped the "
            + "transfer when that passed \(mebibytes) MiB; AsyncHTTPClientTransport has no per-chunk cost"
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
