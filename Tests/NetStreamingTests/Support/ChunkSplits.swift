import Foundation
import NetCore

/// Every way the tests cut a sample into chunks: whole, in two at every position, in three at every pair of
/// positions, and byte by byte. Empty chunks are included on purpose (a cut at either end).
enum ChunkSplits {
    static func all(_ sample: [UInt8], threeWay: Bool = true) -> [[Data]] {
        var splits: [[Data]] = [[Data(sample)]]
        for cut in 0...sample.count {
            splits.append([Data(sample[..<cut]), Data(sample[cut...])])
        }
        if threeWay {
            for first in 0...sample.count {
                for second in first...sample.count {
                    splits.append([Data(sample[..<first]), Data(sample[first..<second]), Data(sample[second...])])
                }
            }
        }
        splits.append(sample.map { Data([$0]) })
        return splits
    }

    static func all(_ sample: String, threeWay: Bool = true) -> [[Data]] {
        all(Array(sample.utf8), threeWay: threeWay)
    }

    /// Cuts that leave a `Data` slice with a non-zero `startIndex`, as `Data.dropFirst` makes them.
    static func slices(_ sample: String) -> [Data] {
        let whole = Data(("xx" + sample).utf8)
        return [whole.dropFirst(2)]
    }
}

/// A body that yields `chunks`, then ends (or fails with `error`).
func body(_ chunks: [Data], failingWith error: (any Error)? = nil) -> ResponseBody {
    ResponseBody(
        AsyncThrowingStream { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish(throwing: error)
        })
}

func body(_ text: String) -> ResponseBody {
    body([Data(text.utf8)])
}

/// Everything a sequence yields, in order.
func collect<S: AsyncSequence>(_ sequence: S, isolation: isolated (any Actor)? = #isolation) async throws -> [S.Element]
{
    var elements: [S.Element] = []
    for try await element in sequence { elements.append(element) }
    return elements
}

/// What a sequence yields before it fails, and the error (`nil` if it ended cleanly); then checks that the
/// iterator stays finished.
func collectUntilError<S: AsyncSequence>(
    _ sequence: S,
    isolation: isolated (any Actor)? = #isolation
) async -> (elements: [S.Element], error: (any Error)?, nextAfterEnd: S.Element?) {
    var iterator = sequence.makeAsyncIterator()
    var elements: [S.Element] = []
    do {
        while let element = try await iterator.next(isolation: isolation) { elements.append(element) }
        return (elements, nil, try? await iterator.next(isolation: isolation))
    } catch {
        return (elements, error, try? await iterator.next(isolation: isolation))
    }
}

/// An error a test body fails with.
struct BrokenPipe: Error, Equatable {}
