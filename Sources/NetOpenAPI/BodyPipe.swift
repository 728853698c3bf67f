#if OpenAPI
import Dispatch
import Foundation  // InputStream.Status: not in FoundationEssentials
import OpenAPIRuntime
import NetKitLock

/// Carries a generated client's request body, an async sequence, to a transport that reads bodies synchronously
/// through an `InputStream`, in bounded memory.
///
/// A task iterates the body and queues its chunks; the transport's reads take them, blocking while none is
/// queued. The task pauses while ``highWaterMark`` bytes wait unread, so a body of any size holds at most about
/// that much. Used only with a transport that reads bodies on threads of its own
/// (one that reads request bodies on threads of its own: AsyncHTTPClientTransport, on NIO's blocking pool),
/// never on Swift's cooperative threads nor on a queue other transfers share, so a blocked read can neither starve
/// the task that would unblock it nor stall anything else.
final class BodyPipe: Sendable {
    /// Unread bytes at which the producing task pauses.
    static let highWaterMark = 256 * 1024

    private struct State {
        var chunks: [ArraySlice<UInt8>] = []
        var head = 0
        var buffered = 0
        var isFinished = false
        var error: (any Error)?
        var isClosed = false
        var isOpen = false
        var producer: Task<Void, Never>?
        var paused: CheckedContinuation<Void, Never>?
        var readerIsWaiting = false
    }

    private let body: HTTPBody
    private let state = Lock(State())
    /// Signalled when a waiting reader has something to look at: a chunk, the end, an error, or a close.
    private let readable = DispatchSemaphore(value: 0)

    init(body: HTTPBody) {
        self.body = body
    }

    /// Starts the producing task, once.
    func open() {
        let starts = state.withLock { state in
            guard !state.isOpen, !state.isClosed else { return false }
            state.isOpen = true
            return true
        }
        guard starts else { return }
        let task = Task { await self.produce() }
        let closedMeanwhile = state.withLock { state in
            state.producer = task
            return state.isClosed
        }
        if closedMeanwhile { task.cancel() }
    }

    private func produce() async {
        do {
            for try await chunk in body {
                guard !chunk.isEmpty else { continue }
                guard await push(chunk) else { return }
            }
            finish(nil)
        } catch {
            finish(error)
        }
    }

    /// Queues a chunk and waits while too much is unread; `false` once the pipe was closed.
    private func push(_ chunk: ArraySlice<UInt8>) async -> Bool {
        let (accepted, wakesReader) = state.withLock { state -> (Bool, Bool) in
            guard !state.isClosed else { return (false, false) }
            state.chunks.append(chunk)
            state.buffered += chunk.count
            let wakes = state.readerIsWaiting
            state.readerIsWaiting = false
            return (true, wakes)
        }
        if wakesReader { readable.signal() }
        guard accepted else { return false }
        await withCheckedContinuation { continuation in
            let waits = state.withLock { state in
                guard state.buffered >= Self.highWaterMark, !state.isClosed else { return false }
                state.paused = continuation
                return true
            }
            if !waits { continuation.resume() }
        }
        return state.withLock { !$0.isClosed }
    }

    private func finish(_ error: (any Error)?) {
        let wakesReader = state.withLock { state in
            state.isFinished = true
            state.error = error
            let wakes = state.readerIsWaiting
            state.readerIsWaiting = false
            return wakes
        }
        if wakesReader { readable.signal() }
    }

    /// Copies queued bytes into `buffer`, waiting for some when none is queued: the count, 0 at the end of the
    /// body, -1 when iterating it failed or the pipe was closed.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard !buffer.isEmpty else { return 0 }
        while true {
            enum Step {
                case copied(Int, CheckedContinuation<Void, Never>?)
                case ended, failed, wait
            }
            let step = state.withLock { state -> Step in
                if state.isClosed || state.error != nil { return .failed }
                if state.head < state.chunks.count {
                    var copied = 0
                    while copied < buffer.count, state.head < state.chunks.count {
                        let chunk = state.chunks[state.head]
                        let count = min(chunk.count, buffer.count - copied)
                        let target = UnsafeMutableRawBufferPointer(rebasing: buffer[copied..<(copied + count)])
                        chunk.prefix(count).withUnsafeBytes { target.copyMemory(from: $0) }
                        copied += count
                        if count == chunk.count {
                            state.chunks[state.head] = []
                            state.head += 1
                        } else {
                            state.chunks[state.head] = chunk.dropFirst(count)
                        }
                    }
                    if state.head == state.chunks.count {
                        state.chunks.removeAll(keepingCapacity: true)
                        state.head = 0
                    }
                    state.buffered -= copied
                    var resumed: CheckedContinuation<Void, Never>?
                    if state.buffered < Self.highWaterMark {
                        resumed = state.paused
                        state.paused = nil
                    }
                    return .copied(copied, resumed)
                }
                if state.isFinished { return .ended }
                state.readerIsWaiting = true
                return .wait
            }
            switch step {
            case .copied(let count, let paused):
                paused?.resume()
                return count
            case .ended: return 0
            case .failed: return -1
            case .wait: readable.wait()
            }
        }
    }

    /// Whether reads can still produce bytes or the end.
    var isReadable: Bool {
        state.withLock { !$0.isClosed && $0.error == nil && !($0.isFinished && $0.head == $0.chunks.count) }
    }

    /// The error iterating the body ended with, if any.
    var error: (any Error)? { state.withLock { $0.error } }

    /// The stream's status as `InputStream` reports it.
    var status: Stream.Status {
        state.withLock { state in
            if state.isClosed { return .closed }
            if state.error != nil { return .error }
            if !state.isOpen { return .notOpen }
            if state.isFinished, state.head == state.chunks.count { return .atEnd }
            return .open
        }
    }

    /// Stops the producing task and fails reads from now on (one waiting now included). Idempotent.
    func close() {
        let (producer, paused, wakesReader) = state.withLock { state in
            state.isClosed = true
            state.chunks.removeAll()
            state.head = 0
            state.buffered = 0
            let taken = (state.producer, state.paused, state.readerIsWaiting)
            state.producer = nil
            state.paused = nil
            state.readerIsWaiting = false
            return taken
        }
        producer?.cancel()
        paused?.resume()
        if wakesReader { readable.signal() }
    }
}
#endif
