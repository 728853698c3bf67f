import Foundation
import NetKitLock

/// The archive ``HARRecordingTransport`` builds: a slot per exchange in the order the exchanges started, the file
/// rewritten whenever one finishes, and the waits of ``HARRecordingTransport/flush()``.
final class HARRecorder: Sendable {
    /// Where a body too large to inline goes: `<archive name>.bodies/<n>-<part>.bin` beside the archive.
    struct BodyFile: Sendable {
        /// The file.
        let url: URL
        /// Its path relative to the archive's folder, what the archive names.
        let relativePath: String
        /// `"request"` or `"response"`.
        let part: String

        /// Creates the file (and its folder), empty, and opens it for writing.
        func create() throws -> FileHandle {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            return try FileHandle(forWritingTo: url)
        }
    }

    private struct Waiter {
        let id: Int
        /// The exchanges the wait covers: those that started before it.
        let count: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        /// One per exchange started, in that order; `nil` while it runs.
        var slots: [HAREntry?] = []
        /// How many slots from the first are filled: every wait for no more than these many is over.
        var finishedPrefix = 0
        var waiters: [Waiter] = []
        var nextWaiterID = 0
        /// Waits cancelled before they were registered.
        var cancelledWaiters: Set<Int> = []
        /// Files that could not be written since the last flush.
        var failures: [HARRecordingError] = []
    }

    let fileURL: URL
    let redaction: HARRedaction
    let inlineBodyLimit: Int
    /// The folder of large bodies, `<archive name without .har>.bodies`, beside the archive.
    private let bodiesFolder: URL
    private let state = Lock(State())
    /// Held while the file is written, so that a snapshot taken later is never overwritten by one taken earlier.
    private let writing = Lock(())

    init(fileURL: URL, redaction: HARRedaction, inlineBodyLimit: Int) {
        self.fileURL = fileURL
        self.redaction = redaction
        self.inlineBodyLimit = max(0, inlineBodyLimit)
        let name = fileURL.deletingPathExtension().lastPathComponent
        bodiesFolder = fileURL.deletingLastPathComponent().appendingPathComponent(name + ".bodies", isDirectory: true)
    }

    /// Reserves the next slot; the first one also clears the bodies an earlier recording left in the folder.
    func begin() -> Int {
        let slot = state.withLock { state in
            state.slots.append(nil)
            return state.slots.count - 1
        }
        if slot == 0 { removeEarlierBodies() }
        return slot
    }

    /// The file for the `part` (`"request"` or `"response"`) body of the exchange in `slot`.
    func bodyFile(slot: Int, part: String) -> BodyFile {
        let name = "\(slot + 1)-\(part).bin"
        return BodyFile(
            url: bodiesFolder.appendingPathComponent(name),
            relativePath: bodiesFolder.lastPathComponent + "/" + name, part: part)
    }

    /// Files the finished exchange of `slot`, rewrites the archive and ends the waits it completes.
    func complete(_ slot: Int, with entry: HAREntry) {
        let ready = state.withLock { state in
            state.slots[slot] = entry
            while state.finishedPrefix < state.slots.count, state.slots[state.finishedPrefix] != nil {
                state.finishedPrefix += 1
            }
            let prefix = state.finishedPrefix
            let ready = state.waiters.filter { $0.count <= prefix }
            state.waiters.removeAll { $0.count <= prefix }
            return ready
        }
        do { try write() } catch { note(error) }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Keeps `failure` for the next ``flush()`` to throw.
    func note(_ failure: HARRecordingError) {
        state.withLock { $0.failures.append(failure) }
    }

    /// The exchanges finished so far, in the order they started.
    var archive: HARArchive {
        HARArchive(log: HARLog(entries: state.withLock { $0.slots.compactMap { $0 } }))
    }

    /// Waits for every exchange started so far, writes the archive, then throws the first file that could not be
    /// written since the last flush.
    func flush() async throws {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledWaiters.remove(id) != nil { return .failure(CancellationError()) }
                    if state.finishedPrefix == state.slots.count { return .success(()) }
                    state.waiters.append(Waiter(id: id, count: state.slots.count, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelledWaiters.insert(id)
                    return Waiter?.none
                }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        try write()
        let failure = state.withLock { state in
            defer { state.failures.removeAll() }
            return state.failures.first
        }
        if let failure { throw failure }
    }

    /// Writes the archive as it stands, its folder created if missing.
    private func write() throws(HARRecordingError) {
        try writing.withLock { _ throws(HARRecordingError) in
            let archive = self.archive
            do {
                try FileManager.default.createDirectory(
                    at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
                try archive.write(to: fileURL)
            } catch {
                throw HARRecordingError(operation: "write the archive", path: fileURL.path, reason: "\(error)")
            }
        }
    }

    /// Removes the body files (`<n>-request.bin`, `<n>-response.bin`) an earlier recording to the same archive left,
    /// which the new archive would not name; nothing else in the folder is touched.
    private func removeEarlierBodies() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: bodiesFolder.path)) ?? []
        for name in names where Self.isBodyFileName(name) {
            try? FileManager.default.removeItem(at: bodiesFolder.appendingPathComponent(name))
        }
    }

    private static func isBodyFileName(_ name: String) -> Bool {
        for suffix in ["-request.bin", "-response.bin"] where name.hasSuffix(suffix) {
            let number = name.dropLast(suffix.count)
            return !number.isEmpty && number.allSatisfy(\.isASCII) && number.allSatisfy(\.isNumber)
        }
        return false
    }
}
