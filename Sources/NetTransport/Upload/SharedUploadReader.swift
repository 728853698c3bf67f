import Foundation
import NetCore
import NetKitLock

/// An `UploadReader` behind a lock, so one thread reads while another may close it.
///
/// URLSession reads a body on its own queue, while cancellation and completion arrive on
/// other threads; whoever sees the transfer end calls ``close()`` to release every open file
/// at once, without waiting for URLSession to drop its stream. `Sendable` for that reason:
/// the non-`Sendable` reader is only touched inside `state`'s lock.
final class SharedUploadReader: Sendable {
    /// Where the body stands, in `Stream.Status` terms because an `InputStream` reports it.
    private struct State {
        var reader: UploadReader?
        var status: Stream.Status = .notOpen
        var error: UploadSourceError?
    }

    private let state: Lock<State>

    /// Takes over `reader`.
    init(_ reader: sending UploadReader) {
        state = Lock(State(reader: reader))
    }

    /// The error that stopped reading, if any.
    var error: UploadSourceError? {
        state.withLock { $0.error }
    }

    var status: Stream.Status {
        state.withLock { $0.status }
    }

    /// Whether reading may still produce bytes or report the end or a failure.
    var isReadable: Bool {
        state.withLock { $0.status == .open }
    }

    /// Bytes handed out so far.
    var bytesRead: Int64 {
        state.withLock { $0.reader?.bytesRead ?? 0 }
    }

    func open() {
        state.withLock { state in
            if state.status == .notOpen { state.status = .open }
        }
    }

    /// Fills `buffer` with the next piece: the count, 0 at the end of the body, -1 when a file
    /// or stream failed or broke its declared length, or after ``close()``.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let buffer = CallScopedBuffer(bytes: buffer)
        return state.withLock { state in
            guard state.status == .open, let reader = state.reader else {
                return state.status == .atEnd ? 0 : -1
            }
            do throws(UploadSourceError) {
                let count = try reader.read(into: buffer.bytes)
                if count == 0 && !buffer.bytes.isEmpty {
                    state.status = .atEnd
                    // Release the last file now rather than whenever the stream is dropped.
                    reader.close()
                    state.reader = nil
                }
                return count
            } catch {
                state.error = error
                state.status = .error
                state.reader = nil
                return -1
            }
        }
    }

    /// Stops reading and closes every open file and stream of the body. Idempotent; a read
    /// after it returns -1, so a transfer still running fails instead of ending short.
    func close() {
        state.withLock { state in
            state.reader?.close()
            state.reader = nil
            if state.status == .notOpen || state.status == .open { state.status = .closed }
        }
    }
}

/// The caller's buffer, carried into the lock.
///
/// `@unchecked Sendable` because a raw pointer is not `Sendable`, and without this the region
/// checker ties the locked reader to the caller's task through the pointer. It is safe: the
/// buffer is written only during ``SharedUploadReader/read(into:)``, synchronously, under the
/// lock, and never stored.
private struct CallScopedBuffer: @unchecked Sendable {
    let bytes: UnsafeMutableRawBufferPointer
}
