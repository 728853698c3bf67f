#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore
import NetKitLock

/// What cancelled downloads still write to their partial files, by the file's path: the bytes their transport had
/// received, and still receives until it has stopped.
///
/// Why: on Linux URLSession cannot stop a fast transfer at once (its cancellation waits for a work queue the transfer
/// keeps busy) and reads on, sometimes to the end of the file; thrown away, every one of those bytes would be asked
/// for again by the next call. Written, they are bytes the next call need not ask for. The cancelled call returns at
/// once; the next call for the same file waits here until the writes are done, then asks for what is still missing.
/// The writes end when the body does: when the transport has stopped, or the body reached its end; a body of unknown
/// length is written for at most ``unknownLengthLimit`` bytes.
enum PendingWrites {
    /// The most bytes written after a cancelled call of a body whose length nobody announced (a stream that never
    /// ends would otherwise be written for as long as the transport reads it).
    static let unknownLengthLimit: Int64 = 64 << 20

    /// The file a cancelled call hands over with the rest of its body.
    ///
    /// `@unchecked Sendable`: the call that made it hands it over as it throws and never touches it again (it no
    /// longer closes it), so the writing task is its only user from then on.
    struct HandedOver: @unchecked Sendable {
        let file: PartialFile
    }

    private struct Entry {
        let id: Int
        let writes: Task<Void, Never>
    }

    private static let running = Lock((next: 0, entries: [String: Entry]()))

    /// Writes what `body` still delivers to the end of `handedOver`'s file, up to the resource's announced length
    /// (``unknownLengthLimit`` bytes when none was), then saves `state` with the file's length beside it at
    /// `stateURL` (or, when nothing was ever written, removes both), and closes the file.
    static func finish(_ body: ResponseBody, into handedOver: HandedOver, state: DownloadResumeState, stateURL: URL) {
        let path = handedOver.file.url.path(percentEncoded: false)
        // The task's own removal of its entry waits for this lock, so it always comes after the entry is made.
        running.withLock { table in
            table.next += 1
            let id = table.next
            let writes = Task.detached {
                let file = handedOver.file
                let end = state.totalBytes ?? (file.length + unknownLengthLimit)
                do {
                    for try await chunk in body {
                        let room = end - file.length
                        if room <= 0 { break }
                        try file.append(room < chunk.count ? chunk.prefix(Int(room)) : chunk)
                    }
                } catch {
                    // The transport stopped (the cancellation landed) or the disk is full: what was written is kept.
                }
                if file.length > 0 {
                    var state = state
                    state.bytesOnDisk = file.length
                    state.save(at: stateURL)
                } else {
                    try? FileManager.default.removeItem(at: file.url)
                    try? FileManager.default.removeItem(at: stateURL)
                }
                file.close()
                running.withLock { table in
                    if table.entries[path]?.id == id { table.entries[path] = nil }
                }
            }
            table.entries[path] = Entry(id: id, writes: writes)
        }
    }

    /// Returns once no cancelled download writes to the partial file at `url` any more. Not cut short by the caller's
    /// cancellation: the writes end when their transfer does, and a call cancelled meanwhile stops at its next step.
    static func settled(_ url: URL) async {
        let writes = running.withLock { $0.entries[url.path(percentEncoded: false)]?.writes }
        await writes?.value
    }
}
