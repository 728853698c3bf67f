import Foundation
import NetTransport
import Testing

/// The pure decision behind stopping a flood of tiny chunks over URLSession: what FoundationNetworking holds is
/// estimated from chunk sizes and arrival times, never from how many chunks passed.
@Suite("Tiny chunk budget: what is held, not what passed")
struct TinyChunkBudgetTests {
    /// 1,000 chunks held at most, 128 freed a second (exact in binary, so the tables are exact), chunks of 1,000
    /// bytes or more free.
    static let small = TinyChunkBudget.Limits(
        memoryBudget: 100_000, bytesPerChunk: 100, releasedPerSecond: 128, tinyBelow: 1000)

    /// `count` chunks of `size` bytes, the first `gap` after the previous phase's last, then one every `every`.
    struct Phase: Sendable, CustomTestStringConvertible {
        var count: Int
        var size: Int
        var gap: Duration = .zero
        var every: Duration = .zero

        var testDescription: String { "\(count)×\(size) B after \(gap), every \(every)" }
    }

    /// Feeds the phases to a budget; the number of the chunk that passed it (from 1), or `nil`.
    static func stop(_ phases: [Phase], limits: TinyChunkBudget.Limits) -> Int? {
        var budget = TinyChunkBudget(limits: limits)
        var now = ContinuousClock.now
        var number = 0
        for phase in phases {
            for index in 0..<phase.count {
                now += index == 0 ? phase.gap : phase.every
                number += 1
                if budget.record(chunkOf: phase.size, at: now) == .exceeded { return number }
            }
        }
        return nil
    }

    /// 1/256 s: two chunks this far apart free exactly ½ a chunk at 128 a second.
    static let tick = Duration.nanoseconds(3_906_250)

    @Test(
        "the chunk that passes the budget is the one the estimate says",
        arguments: [
            ("1,000 empty chunks at once fill it exactly", [Phase(count: 1000, size: 0)], nil),
            ("the 1,001st passes it", [Phase(count: 2000, size: 0)], 1001),
            ("a 500-byte chunk counts half", [Phase(count: 3000, size: 500)], 2001),
            ("chunks of 1,000 bytes or more never count", [Phase(count: 100_000, size: 1000)], nil),
            ("nor do large ones", [Phase(count: 100_000, size: 16_384)], nil),
            (
                "a burst, a pause that frees it all, another burst",
                [Phase(count: 1000, size: 0), Phase(count: 1000, size: 0, gap: .seconds(10))], nil
            ),
            (
                "a pause of 1 s frees 128: the 129th chunk after it passes",
                [Phase(count: 1000, size: 0), Phase(count: 200, size: 0, gap: .seconds(1))], 1129
            ),
            (
                "twice the release rate gains ½ a chunk each: the 2,000th passes",
                [Phase(count: 3000, size: 0, every: Self.tick)], 2000
            ),
            ("at the release rate nothing piles up", [Phase(count: 50_000, size: 0, every: Self.tick * 2)], nil),
        ] as [(String, [Phase], Int?)])
    func table(_ name: String, phases: [Phase], expected: Int?) {
        #expect(Self.stop(phases, limits: Self.small) == expected, "\(name)")
    }

    @Test("the standard budget stops a flood of one-byte chunks (100,000 a second) before 36 MiB is held")
    func floodStopped() throws {
        let limits = TinyChunkBudget.Limits.standard
        let stop = try #require(
            Self.stop([Phase(count: 1_000_000, size: 1, every: .microseconds(10))], limits: limits))
        // In a flood nothing is freed: every chunk until the stop is held, 336 bytes each.
        #expect(stop * limits.bytesPerChunk <= 36 << 20, "stopped at chunk \(stop)")
        #expect(stop > 99_000, "stopped at chunk \(stop), before the budget")
    }

    @Test("server-sent events for a day (a small event every 20 ms) are never stopped")
    func slowStreamForHours() {
        let day = 24 * 60 * 60 * 50
        #expect(Self.stop([Phase(count: day, size: 120, every: .milliseconds(20))], limits: .standard) == nil)
    }

    @Test("the explanation says what failed, why, and what to use instead")
    func explanation() {
        var budget = TinyChunkBudget()
        for _ in 0..<10 { _ = budget.record(chunkOf: 1, at: .now) }
        let text = budget.explanation
        #expect(text.contains("tiny chunks (10 so far"))
        #expect(text.contains("FoundationNetworking keeps about 336 bytes for each"))
        #expect(text.contains("32 MiB"))
        #expect(text.contains("AsyncHTTPClientTransport has no per-chunk cost"))
    }
}
