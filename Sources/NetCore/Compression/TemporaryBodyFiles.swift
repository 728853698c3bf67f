#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetKitLock
import Synchronization

/// The temporary files of compressed bodies still being sent, by request number: ``RequestCompressionPlugin`` files
/// each under the number `prepare` saw and removes it in `didFinish`, which the engine calls once for every request
/// whose `prepare` ran, however it ends (a success, a failure, a cancellation, a timeout, a later plugin's
/// `prepare` throwing).
///
/// Kept by number rather than read from the request `didFinish` is given: for a request that failed without a
/// response, that is the request as it was before any plugin's `prepare`.
final class TemporaryBodyFiles: Sendable {
    private let files = Lock<[UInt64: [URL]]>([:])
    /// How many files are filed: `didFinish` of a request that has none (most) returns without taking the lock.
    private let count = Atomic(0)

    /// Files `url` under `requestNumber`.
    func file(_ url: URL, for requestNumber: UInt64) {
        files.withLock { $0[requestNumber, default: []].append(url) }
        count.add(1, ordering: .releasing)
    }

    /// Removes the files filed under `requestNumber`, if any, from the disk too.
    func remove(for requestNumber: UInt64) {
        guard count.load(ordering: .acquiring) > 0 else { return }
        guard let urls = files.withLock({ $0.removeValue(forKey: requestNumber) }) else { return }
        count.subtract(urls.count, ordering: .releasing)
        for url in urls { CompressedBodyFile.remove(url) }
    }

    /// The files still filed, for tests.
    var pending: [URL] {
        files.withLock { $0.values.flatMap { $0 } }
    }
}
