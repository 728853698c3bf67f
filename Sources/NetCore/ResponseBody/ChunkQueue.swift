#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import NetKitLock

/// The buffer between a transport that pushes chunks (URLSession's delegate) and the one consumer of a
/// ``ResponseBody``: at most `limit` unread bytes in memory, and beyond them, when `spill` allows, a temporary
/// file.
///
/// A transport that cannot pause its sender (URLSession on Linux) pushes whatever arrives; a consumer that
/// falls behind would let the body pile up in memory. Past `limit` unread bytes in memory the queue sends what
/// arrives to a nameless temporary file, in order, and the consumer reads it back once it has taken what memory
/// holds: memory stays bounded and a healthy stream is never failed for being read slowly. Past the spill's own
/// limit (or past `limit` without a spill) the queue fails loudly with
/// ``StreamingError/bufferLimitExceeded(limitBytes:)``, drops what it held and tells the producer to stop: no
/// data is ever dropped or duplicated silently. A spill writer that falls behind by more than its write-ahead ends
/// the body the same way, except that what is held is still delivered before the error: those bytes arrived.
///
/// A consumer that fell behind takes what waits in memory joined into one chunk, up to a mebibyte a read
/// (``StateMachine/Limits/catchUpSize``): what it pays per chunk (a wake-up, a file write, a progress report) is then
/// paid per mebibyte rather than per 16 KiB piece libcurl hands over, so it catches up instead of staying behind while
/// memory fills. A consumer that keeps up gets each chunk as it was pushed.
///
/// Every decision is ``StateMachine``'s; this type carries them out. The producer (on URLSession's work queue, which
/// every session of a Linux process shares) never touches the file: it hands bytes to a writer of the body's own, a
/// serial queue that makes, writes, empties and closes the file, and memory stays bounded by `limit` plus the
/// spill's ``Spill/writeAhead`` while the disk catches up. The consumer reads the file back on its own task. No
/// file I/O runs under the queue's lock.
package final class ChunkQueue: Sendable {
    /// Where bytes beyond the memory bound go, and how many of them may wait there.
    package struct Spill: Sendable {
        /// The most unread bytes held in the file.
        package var limit: Int
        /// Where the file is made (it is unlinked at once, so it never shows there).
        package var directory: URL
        /// The most bytes held in memory on their way to the file: past it the disk has fallen behind, and the body
        /// fails with ``ResponseBodyError/spillFailed(reason:)``. 32 MiB by default: twice a 16 MiB burst that a
        /// loopback server delivered while the writer's thread waited for a core (the full test suite on 2 cores
        /// overran 8 MiB).
        package var writeAhead: Int
        /// Called by the writer before each write to the file, with the write's offset and size (tests hold the
        /// writer back with it, or follow the file's extent).
        package var beforeWrite: (@Sendable (_ offset: Int64, _ count: Int) -> Void)?

        package init(
            limit: Int, directory: URL, writeAhead: Int = 32 << 20,
            beforeWrite: (@Sendable (_ offset: Int64, _ count: Int) -> Void)? = nil
        ) {
            self.limit = limit
            self.directory = directory
            self.writeAhead = writeAhead
            self.beforeWrite = beforeWrite
        }
    }

    /// What the consumer is handed, by its own look or by whoever wakes it.
    private enum Delivery {
        case chunk(Data)
        /// Join these into one chunk, outside the lock.
        case pieces([Data])
        case end
        case failed(any Error)
        /// Read these bytes back from the file, outside the lock.
        case readFile(SpillFile, offset: Int64, count: Int)
    }

    private struct State {
        var machine: StateMachine
        var file: SpillFile?
        /// The writer's queue, made with the first byte for the file.
        var writerQueue: DispatchQueue?
        var waiter: (id: Int, continuation: CheckedContinuation<Delivery, Never>)?
        var nextWaiterID = 0
        /// When the producer last pushed a chunk (or the queue was made).
        var lastActivity = ContinuousClock.now
        /// Told once when the transfer is over for the producer: ended, failed or abandoned (a body's watchdog, a
        /// test waiting for the end).
        var onOver: [@Sendable () -> Void] = []
        /// Continuations waiting for the writer to have nothing left to do.
        var settledWaiters: [CheckedContinuation<Void, Never>] = []
        /// Whether the producer has been told to stop (`onAbandon` runs once).
        var producerStopped = false

        /// A read of the machine as the consumer receives it.
        func delivery(_ read: StateMachine.Read) -> Delivery? {
            switch read {
            case .chunk(let data): .chunk(data)
            case .pieces(let pieces): .pieces(pieces)
            case .end: .end
            case .failed(let box): .failed(box.error)
            case .readFile(let offset, let count):
                // The machine asks for a read only of bytes a write put in the file, which is open until then.
                file.map { .readFile($0, offset: offset, count: count) }
                    ?? .failed(
                        ResponseBodyError.spillFailed(reason: "the temporary file was closed before it was read"))
            case .wait: nil
            }
        }
    }

    /// What to do outside the lock after a step.
    private struct Actions {
        var wake: (CheckedContinuation<Delivery, Never>, Delivery)?
        var onOver: [@Sendable () -> Void] = []
        var stopTransfer = false
        var writer: DispatchQueue?
        var settled: [CheckedContinuation<Void, Never>] = []
    }

    /// The most pieces of work the writer does before it lets its queue run something else.
    private static let writerRound = 64

    private let state: Lock<State>
    private let spill: Spill?
    private let onAbandon: @Sendable () -> Void

    /// - Parameters:
    ///   - limit: The most unread bytes held in memory; `Int.max` for none.
    ///   - spill: Where bytes beyond `limit` wait; `nil` fails the body past `limit` instead.
    ///   - onAbandon: Called once when the consumer gives up (it stopped iterating, or went away) or a limit is
    ///     passed: the transport cancels the transfer.
    package init(limit: Int, spill: Spill? = nil, onAbandon: @escaping @Sendable () -> Void) {
        let limits = StateMachine.Limits(bufferLimit: limit, spill: spill)
        self.state = Lock(State(machine: StateMachine(limits: limits)))
        self.spill = spill
        self.onAbandon = onAbandon
    }

    /// The most unread bytes held in memory at once so far.
    package var peakBufferedBytes: Int { state.withLock { $0.machine.peakMemoryBytes } }

    /// The most unread bytes on their way to, or in, the spill file at once so far.
    package var peakSpilledBytes: Int64 { state.withLock { $0.machine.peakSpilledBytes } }

    // MARK: Producer

    /// Hands `chunk` to the consumer, or keeps it; `false` once the body is over for the consumer (ended, failed,
    /// abandoned, or past a limit now), in which case the producer must stop.
    @discardableResult
    package func push(_ chunk: Data) -> Bool {
        let (push, waiter, actions): (StateMachine.Push, CheckedContinuation<Delivery, Never>?, Actions) =
            state.withLock { state in
                if !chunk.isEmpty { state.lastActivity = .now }
                let (push, effects) = state.machine.push(chunk)
                var waiter: CheckedContinuation<Delivery, Never>?
                if push == .deliver {
                    waiter = state.waiter?.continuation
                    state.waiter = nil
                }
                return (push, waiter, Self.actions(for: effects, in: &state))
            }
        waiter?.resume(returning: .chunk(chunk))
        perform(actions)
        return push == .deliver || push == .kept
    }

    /// Ends the body: cleanly when `error` is `nil`. Chunks already pushed are still delivered first.
    package func finish(throwing error: (any Error)? = nil) {
        perform(state.withLock { Self.actions(for: $0.machine.finish(throwing: error), in: &$0) })
    }

    /// Ends the body now with `error`, dropping what it held, and stops the transfer (a timeout). Does nothing once
    /// the body has ended.
    package func fail(_ error: any Error) {
        perform(state.withLock { Self.actions(for: $0.machine.fail(error), in: &$0) })
    }

    /// When the producer last pushed a chunk.
    package var lastActivity: ContinuousClock.Instant { state.withLock { $0.lastActivity } }

    /// Runs `action` once when the transfer is over for the producer (ended, failed or abandoned); at once when it
    /// is over already.
    package func whenOver(_ action: @escaping @Sendable () -> Void) {
        let over: Bool = state.withLock { state in
            guard !state.machine.isOverForProducer else { return true }
            state.onOver.append(action)
            return false
        }
        if over { action() }
    }

    // MARK: Consumer

    /// The next chunk; `nil` at the clean end.
    /// - Throws: the transport's error, ``StreamingError/bufferLimitExceeded(limitBytes:)``,
    ///   ``ResponseBodyError/spillFailed(reason:)``, ``ResponseBodyError/concurrentIteration`` while another iterator
    ///   of the same body waits, or `CancellationError` when the consuming task is cancelled.
    /// - Parameter keepingArrivals: When the consuming task is cancelled, stop the producer but keep what the queue
    ///   holds and what still arrives (``stopProducer()``) instead of dropping it (``abandon()``).
    package func next(isolation actor: isolated (any Actor)? = #isolation, keepingArrivals: Bool = false)
        async throws -> Data?
    {
        // A consumer that fell behind takes what is waiting without setting up a continuation and a cancellation
        // handler per chunk: catching up must cost less than falling behind did.
        let first: (Delivery?, Actions, Int) = state.withLock { state in
            let (read, effects) = state.machine.nextRead(mayWait: false)
            let actions = Self.actions(for: effects, in: &state)
            if let delivery = state.delivery(read) { return (delivery, actions, 0) }
            state.nextWaiterID += 1
            return (nil, actions, state.nextWaiterID)
        }
        perform(first.1)
        if let delivery = first.0 { return try receive(delivery) }
        let id = first.2
        let delivery = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Delivery, Never>) in
                let (ready, actions): (Delivery?, Actions) = state.withLock { state in
                    if Task.isCancelled { return (.failed(CancellationError()), Actions()) }
                    let (read, effects) = state.machine.nextRead(mayWait: true)
                    let actions = Self.actions(for: effects, in: &state)
                    if let delivery = state.delivery(read) { return (delivery, actions) }
                    state.waiter = (id, continuation)
                    return (nil, actions)
                }
                perform(actions)
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Delivery, Never>? in
                guard let waiter = state.waiter, waiter.id == id else { return nil }
                state.waiter = nil
                state.machine.stopWaiting()
                return waiter.continuation
            }
            waiter?.resume(returning: .failed(CancellationError()))
            // The consumer is gone for good: stop the transfer now rather than when its body is released.
            if keepingArrivals { stopProducer() } else { abandon() }
        }
        return try receive(delivery)
    }

    /// The chunk a delivery stands for, reading it back from the file when it is there.
    private func receive(_ delivery: Delivery) throws -> Data? {
        switch delivery {
        case .chunk(let data):
            return data
        case .pieces(let pieces):
            return Self.joined(pieces)
        case .end:
            return nil
        case .failed(let error):
            throw error
        case .readFile(let file, let offset, let count):
            let result = Result { () throws(ResponseBodyError) in try file.read(at: offset, count: count) }
            let (read, actions): (StateMachine.Read, Actions) = state.withLock { state in
                let (read, effects) = state.machine.didReadFile(result)
                return (read, Self.actions(for: effects, in: &state))
            }
            perform(actions)
            switch read {
            case .chunk(let data): return data
            case .pieces(let pieces): return Self.joined(pieces)
            case .failed(let box): throw box.error
            case .end: return nil
            case .readFile, .wait:
                // The machine answers a read back with its bytes or an error only.
                throw ResponseBodyError.spillFailed(reason: "the temporary file's read back led nowhere")
            }
        }
    }

    /// `pieces` as one chunk, in one allocation.
    private static func joined(_ pieces: [Data]) -> Data {
        var data = Data(capacity: pieces.reduce(0) { $0 + $1.count })
        for piece in pieces { data.append(piece) }
        return data
    }

    /// Tells the producer to stop, once, while the queue keeps what it holds and takes what still arrives until the
    /// producer finishes: a transport that cannot stop at once (URLSession on Linux reads on until its work queue gets
    /// to the cancellation) hands those bytes to whoever reads the body next instead of throwing them away.
    package func stopProducer() {
        let first = state.withLock { state in
            defer { state.producerStopped = true }
            return !state.producerStopped
        }
        if first { onAbandon() }
    }

    /// The consumer gave up before the end: what is held is dropped and the transport is told once.
    package func abandon() {
        perform(state.withLock { Self.actions(for: $0.machine.abandon(), in: &$0) })
    }

    /// Whether a consumer is waiting for the next chunk.
    package var hasWaiter: Bool { state.withLock { $0.machine.consumerWaiting } }

    /// Whether the body reached its end (cleanly or not) for the consumer.
    package var isOver: Bool { state.withLock { $0.machine.isOver } }

    /// Returns once the spill file's writer has nothing left to do: what was read back has been given back, and a
    /// file that is over has been closed.
    package func spillSettled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let settled: Bool = state.withLock { state in
                guard state.machine.writerBusy else { return true }
                state.settledWaiters.append(continuation)
                return false
            }
            if settled { continuation.resume() }
        }
    }

    // MARK: Carrying the machine's decisions out

    /// What `effects` ask for, taken out of `state` under the lock.
    private static func actions(for effects: StateMachine.Effects, in state: inout State) -> Actions {
        var actions = Actions()
        if let read = effects.wake, let delivery = state.delivery(read), let waiter = state.waiter {
            state.waiter = nil
            actions.wake = (waiter.continuation, delivery)
        }
        if effects.over {
            actions.onOver = state.onOver
            state.onOver.removeAll()
        }
        actions.stopTransfer = effects.stopTransfer
        if effects.startWriter {
            if state.writerQueue == nil { state.writerQueue = DispatchQueue(label: "NetKit.ResponseBody.spill") }
            actions.writer = state.writerQueue
        }
        if !state.machine.writerBusy {
            actions.settled = state.settledWaiters
            state.settledWaiters.removeAll()
        }
        return actions
    }

    private func perform(_ actions: Actions) {
        if let (waiter, delivery) = actions.wake { waiter.resume(returning: delivery) }
        for action in actions.onOver { action() }
        if actions.stopTransfer { stopProducer() }
        if let writer = actions.writer { writer.async { self.runWriter() } }
        for waiter in actions.settled { waiter.resume() }
    }

    /// The spill file's writer: does what the machine asks, one action at a time, outside the lock, until it has
    /// nothing to do. After ``writerRound`` actions it goes back to the end of its queue.
    private func runWriter() {
        for _ in 0..<Self.writerRound {
            let (action, file, settled) = state.withLock {
                state -> (StateMachine.WriterAction, SpillFile?, [CheckedContinuation<Void, Never>]) in
                let action = state.machine.nextWriterAction()
                let file = state.file
                if case .close = action { state.file = nil }
                guard action == .idle else { return (action, file, []) }
                defer { state.settledWaiters.removeAll() }
                return (action, file, state.settledWaiters)
            }
            switch action {
            case .idle:
                for waiter in settled { waiter.resume() }
                return
            case .open:
                let result = Result { () throws(ResponseBodyError) in
                    try SpillFile(in: spill?.directory ?? FileManager.default.temporaryDirectory)
                }
                perform(
                    state.withLock { state in
                        if case .success(let file) = result { state.file = file }
                        return Self.actions(for: state.machine.writerDidOpen(result.map { _ in () }), in: &state)
                    })
            case .write(let pieces, let offset):
                spill?.beforeWrite?(offset, pieces.reduce(0) { $0 + $1.count })
                let result = Result { () throws(ResponseBodyError) in
                    guard let file else { throw .spillFailed(reason: "the temporary file was closed before a write") }
                    try file.write(pieces, at: offset)
                }
                perform(state.withLock { Self.actions(for: $0.machine.writerDidWrite(result), in: &$0) })
            case .truncate:
                file?.truncate()
            case .punch(let range):
                let punched = file?.punchHole(range) ?? false
                state.withLock { $0.machine.writerDidPunch(supported: punched) }
            case .close:
                file?.close()
                state.withLock { $0.machine.writerDidClose() }
            }
        }
        // Still busy: the rest after whatever else waits on the queue.
        let queue = state.withLock { $0.writerQueue }
        queue?.async { self.runWriter() }
    }
}
