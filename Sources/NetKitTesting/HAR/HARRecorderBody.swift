import Foundation
import NetKitLock

/// One body on its way into the archive: redacted as it comes, kept in memory while it fits the inline limit, then
/// in its file beside the archive, so a body of any size costs at most the limit in memory.
///
/// Shared by the task that reads a response body and whoever abandons it (a `deinit` on any thread), hence the lock.
final class HARRecorderBody: Sendable {
    /// What became of the body once it ended.
    struct Outcome {
        /// The bytes that came, before redaction.
        var size = 0
        /// The body inline, redacted; `nil` when it is in ``file`` or could not be kept.
        var text: String?
        /// `"base64"` for an inline body that is not UTF-8.
        var encoding: String?
        /// The body's file, relative to the archive's folder.
        var file: String?
        /// How the body came, for a response.
        var chunks: [HARChunk] = []
        /// How many JSON or form values were redacted.
        var redactions = 0
        /// The file that could not be written.
        var failure: HARRecordingError?

        /// What the body's `comment` says: the values redacted (the text or file then differs in length from
        /// ``size``), or the file that could not be kept.
        var comment: String? {
            if let failure { return "not kept: \(failure)" }
            guard redactions > 0 else { return nil }
            return
                "\(redactions) value\(redactions == 1 ? "" : "s") redacted; the sizes recorded count the original bytes"
        }
    }

    private struct State {
        var filter: HARRedactionFilter
        /// The redacted bytes, until they pass the limit.
        var inline = Data()
        /// The open file, once the body passed the limit.
        var handle: FileHandle?
        var received = 0
        var chunks: [HARChunk] = []
        var failure: HARRecordingError?
        /// Set by ``finish()``: a chunk read after the exchange was filed (an abandon that raced the last read) is
        /// not recorded.
        var isFinished = false
    }

    private let limit: Int
    private let file: HARRecorder.BodyFile
    private let state: Lock<State>

    /// A body of `contentType`, redacted as `redaction` says, inline up to `limit` bytes, else in `file`.
    init(contentType: String?, redaction: HARRedaction, limit: Int, file: HARRecorder.BodyFile) {
        self.limit = limit
        self.file = file
        state = Lock(State(filter: HARRedactionFilter(contentType: contentType, redaction: redaction)))
    }

    deinit {
        state.withLock { try? $0.handle?.close() }
    }

    /// Records the next piece of the body; `time`, in milliseconds after the response head, for a response chunk.
    func append(_ chunk: Data, at time: Double?) {
        state.withLock { state in
            guard !state.isFinished else { return }
            state.received += chunk.count
            if let time { state.chunks.append(HARChunk(size: chunk.count, time: time)) }
            guard state.failure == nil else { return }
            var redacted = Data()
            state.filter.feed(chunk, into: &redacted)
            if state.handle == nil, state.inline.count + redacted.count <= limit {
                state.inline.append(redacted)
                return
            }
            do {
                if state.handle == nil {
                    state.handle = try file.create()
                    try state.handle?.write(contentsOf: state.inline)
                    state.inline = Data()
                }
                try state.handle?.write(contentsOf: redacted)
            } catch {
                fail(&state, error)
            }
        }
    }

    /// Ends the body and says where it went.
    func finish() -> Outcome {
        state.withLock { state in
            state.isFinished = true
            state.filter.finish()
            var outcome = Outcome(size: state.received, chunks: state.chunks, redactions: state.filter.redactions)
            if let handle = state.handle {
                do {
                    try handle.close()
                    state.handle = nil
                    outcome.file = file.relativePath
                } catch {
                    fail(&state, error)
                }
            } else if state.failure == nil {
                (outcome.text, outcome.encoding) = HARText.text(for: state.inline)
            }
            outcome.failure = state.failure
            return outcome
        }
    }

    /// Gives up on the file: what was written is removed rather than left half-written beside the archive.
    private func fail(_ state: inout State, _ error: any Error) {
        try? state.handle?.close()
        state.handle = nil
        state.inline = Data()
        try? FileManager.default.removeItem(at: file.url)
        state.failure = HARRecordingError(
            operation: "write a \(file.part) body", path: file.url.path, reason: "\(error)")
    }
}
