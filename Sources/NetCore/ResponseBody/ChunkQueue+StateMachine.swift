#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ChunkQueue {
    /// Every decision of a ``ChunkQueue`` as a plain value: where a pushed chunk goes (to the consumer, to memory, on
    /// its way to the spill file, or past a limit), what the consumer reads next (memory, the file, bytes not yet
    /// written), and what the spill file's writer does next (make the file, write, give back what was read, close).
    /// The queue carries the actions out: it holds the waiting consumer, the file and the writer, and does all file
    /// I/O outside its lock, the writes on a queue of the body's own.
    ///
    /// Order of the bytes: memory, then the file from ``fileStart`` to ``fileEnd``, then the batch being written, then
    /// what is staged for the writer. Once any byte waits on the spill road, later ones follow it there, and memory
    /// takes bytes again only when that road is empty.
    ///
    /// The file's space is given back as it is read: everything written read back → the file is truncated to 0 and
    /// both offsets return to its start; otherwise each ``Limits/giveBackStep`` read back is punched out. Only the
    /// writer changes the file's extent (writes, truncation, punching, closing), one action at a time, so the
    /// consumer's reads, of bytes already written and above what is given back, never meet a change.
    struct StateMachine {
        /// The bounds the machine keeps.
        struct Limits: Equatable {
            /// The most unread bytes held in memory (the transport's `bufferLimit`).
            var memory: Int
            /// The most unread bytes on the spill road (file, batch being written, staged); 0 for no spill.
            var spill: Int
            /// The most bytes held in memory on their way to the file: past it the disk has fallen behind and the
            /// body fails, so that memory stays bounded by `memory + writeAhead`.
            var writeAhead: Int
            /// Chunks smaller than this are appended to the last piece held, while it is under ``pieceSize``: a
            /// body of tiny chunks costs its bytes, not a `Data` per byte.
            var coalesceBelow = 4096
            /// The largest piece made by appending small chunks.
            var pieceSize = 64 * 1024
            /// The most bytes read back from the file at once.
            var readSize = 128 * 1024
            /// The most bytes a consumer takes from memory at once when several pieces wait: a consumer that fell
            /// behind catches up a mebibyte per step, not a transport's chunk (16 KiB from libcurl) per step, so what
            /// it pays per chunk (a wake-up, a write, a progress report) does not keep it behind.
            var catchUpSize = 1 << 20
            /// How much read back is given back at once by punching a hole (a multiple of 4 KiB).
            var giveBackStep: Int64 = 1 << 20
            /// The most bytes the writer takes for one write (at least one piece). The batch being written counts
            /// against ``writeAhead`` until it is done: taking everything staged at once would leave a flood only
            /// what the batch did not take while a long write runs, and memory would come back all at once at its end.
            var writeBatch = 1 << 20

            /// The limits of a queue made with `bufferLimit` and `spill`: a spill whose limit is 0 (or less) is no
            /// spill, and memory and the write-ahead hold at least a byte each.
            init(bufferLimit: Int, spill: Spill?) {
                let spillLimit = max(0, spill?.limit ?? 0)
                self.init(
                    memory: max(1, bufferLimit), spill: spillLimit,
                    writeAhead: spillLimit > 0 ? max(1, spill?.writeAhead ?? 0) : 1)
            }

            /// Every limit as given.
            init(
                memory: Int, spill: Int, writeAhead: Int, coalesceBelow: Int = 4096, pieceSize: Int = 64 * 1024,
                readSize: Int = 128 * 1024, giveBackStep: Int64 = 1 << 20, writeBatch: Int = 1 << 20,
                catchUpSize: Int = 1 << 20
            ) {
                self.memory = memory
                self.spill = spill
                self.writeAhead = writeAhead
                self.coalesceBelow = coalesceBelow
                self.pieceSize = pieceSize
                self.readSize = readSize
                self.giveBackStep = giveBackStep
                self.writeBatch = max(1, writeBatch)
                self.catchUpSize = max(1, catchUpSize)
            }
        }

        /// What a pushed chunk led to (with the ``Effects`` of the step).
        enum Push: Equatable {
            /// Hand the chunk to the waiting consumer.
            case deliver
            /// Kept in memory or staged for the writer.
            case kept
            /// The body is over for the producer: it must stop.
            case refused
            /// A limit was passed: the body failed now (``Effects/stopTransfer``), and the producer must stop.
            case failed
        }

        /// What the consumer gets next.
        enum Read: Equatable {
            case chunk(Data)
            /// Pieces that waited in memory, in order, at most ``Limits/catchUpSize`` bytes (or one piece): the
            /// consumer joins them, outside the lock, into one chunk.
            case pieces([Data])
            /// Read `count` bytes of the file at `offset` (outside the lock), then report with ``didReadFile(_:)``.
            case readFile(offset: Int64, count: Int)
            /// Nothing yet: the consumer waits (when it asked to).
            case wait
            case end
            case failed(ErrorBox)
        }

        /// What the spill file's writer does next.
        enum WriterAction: Equatable {
            case open
            case write([Data], at: Int64)
            /// Everything written was read back: truncate the file to 0.
            case truncate
            /// Give back the space of bytes read back.
            case punch(Range<Int64>)
            case close
            /// Nothing to do: the writer stops (and is started again when there is).
            case idle
        }

        /// What the queue must do after a step: wake the waiting consumer with a read, tell the producer's side that
        /// the transfer is over, stop the transfer (the body failed), start the writer.
        struct Effects: Equatable {
            var wake: Read?
            var over = false
            var stopTransfer = false
            var startWriter = false
        }

        /// An error, compared by its text (the machine's tables compare outcomes).
        struct ErrorBox: Equatable, Sendable {
            let error: any Error

            static func == (lhs: ErrorBox, rhs: ErrorBox) -> Bool { "\(lhs.error)" == "\(rhs.error)" }
        }

        private enum FileState: Equatable {
            case none, opening, open, closed
        }

        let limits: Limits
        private var memory = Pieces()
        private var staged = Pieces()
        /// Bytes of the batch the writer is writing now.
        private(set) var writing = 0
        /// Where the unread bytes of the file begin.
        private(set) var fileStart: Int64 = 0
        /// Where the next write goes: everything below it has been written.
        private(set) var fileEnd: Int64 = 0
        /// Bytes the consumer is reading back now.
        private var reading = 0
        /// Below this the file's space has been given back (or asked to be).
        private var givenBack: Int64 = 0
        private var truncateWanted = false
        private var punchWanted: Range<Int64>?
        /// Whether the file system gives back space by punching holes (until a punch says otherwise).
        private var canPunch = true
        private var file = FileState.none
        private var closeWanted = false
        /// Whether everything held was dropped (the body failed now, or was abandoned).
        private var dropped = false
        /// Whether the writer is running (or has been asked to).
        private(set) var writerBusy = false
        private(set) var consumerWaiting = false
        /// How the body ended.
        enum End: Equatable {
            case clean
            case failed(ErrorBox)
        }

        /// How the producer (or a failure) ended the body.
        private(set) var end: End?
        private(set) var abandoned = false
        private(set) var peakMemoryBytes = 0
        private(set) var peakSpilledBytes: Int64 = 0

        init(limits: Limits) {
            self.limits = limits
        }

        /// Unread bytes held in memory.
        var memoryBytes: Int { memory.bytes }

        /// Unread bytes on the spill road: in the file, being written, staged.
        var spilledBytes: Int64 { fileEnd - fileStart + Int64(writing + staged.bytes) }

        /// Whether the body is over for the producer: ended, failed or abandoned.
        var isOverForProducer: Bool { end != nil || abandoned }

        /// Whether the body reached its end, and the consumer has taken everything.
        var isOver: Bool { end != nil && memory.bytes == 0 && spilledBytes == 0 }

        /// Whether the file is open (or being made) and not yet closed.
        var hasFile: Bool { file == .open || file == .opening }

        // MARK: Producer

        /// A chunk from the producer.
        mutating func push(_ chunk: Data) -> (Push, Effects) {
            guard !chunk.isEmpty else { return (.kept, Effects()) }
            guard end == nil, !abandoned else { return (.refused, Effects()) }
            if consumerWaiting, memory.bytes == 0, spilledBytes == 0 {
                consumerWaiting = false
                return (.deliver, Effects())
            }
            if spilledBytes == 0, memory.bytes + chunk.count <= limits.memory {
                memory.append(chunk, coalescingBelow: limits.coalesceBelow, upTo: limits.pieceSize)
                peakMemoryBytes = max(peakMemoryBytes, memory.bytes)
                return (.kept, Effects())
            }
            switch refusal(ofSpilling: chunk.count) {
            case .pastLimit(let error)?: return (.failed, failNow(error))
            case .writerBehind(let error)?: return (.failed, endAfterWhatIsHeld(error))
            case nil: break
            }
            staged.append(chunk, coalescingBelow: limits.coalesceBelow, upTo: limits.pieceSize)
            peakSpilledBytes = max(peakSpilledBytes, spilledBytes)
            return (.kept, Effects(startWriter: wakeWriter()))
        }

        /// Why more bytes cannot go on the spill road.
        private enum Refusal {
            /// Past the body's limits: it fails now.
            case pastLimit(any Error)
            /// The writer fell behind: what is held is still delivered, then the error.
            case writerBehind(any Error)
        }

        /// Why `count` more bytes cannot go on the spill road, if they cannot.
        private func refusal(ofSpilling count: Int) -> Refusal? {
            guard limits.spill > 0 else {
                return .pastLimit(StreamingError.bufferLimitExceeded(limitBytes: limits.memory))
            }
            guard spilledBytes + Int64(count) <= Int64(limits.spill) else {
                let (total, overflow) = limits.memory.addingReportingOverflow(limits.spill)
                return .pastLimit(StreamingError.bufferLimitExceeded(limitBytes: overflow ? .max : total))
            }
            let inMemory = writing + staged.bytes + count
            guard inMemory <= limits.writeAhead else {
                return .writerBehind(
                    ResponseBodyError.spillFailed(
                        reason: "the disk fell behind: \(inMemory) bytes were waiting to be written to the temporary "
                            + "file, more than the \(limits.writeAhead) held in memory for it"))
            }
            return nil
        }

        /// The writer fell behind: the body takes nothing more and the transfer stops, but what is held (all of it
        /// within the bounds) is still delivered before `error`. Those bytes did arrive: a consumer that keeps them (a
        /// download writes them to its file) need not ask for them again.
        private mutating func endAfterWhatIsHeld(_ error: any Error) -> Effects {
            var effects = finish(throwing: error)
            effects.stopTransfer = true
            return effects
        }

        /// The producer ended the body: cleanly when `error` is `nil`. What is held is still delivered first.
        mutating func finish(throwing error: (any Error)?) -> Effects {
            guard end == nil else { return Effects() }
            end = error.map { .failed(ErrorBox(error: $0)) } ?? .clean
            var effects = Effects(over: !abandoned)
            wakeConsumer(into: &effects)
            effects.startWriter = closeIfDrained() || effects.startWriter
            return effects
        }

        /// The body failed now (a timeout): everything held is dropped and the transfer stops. Nothing once the body
        /// is over for the producer.
        mutating func fail(_ error: any Error) -> Effects {
            guard end == nil, !abandoned else { return Effects() }
            return failNow(error)
        }

        /// The consumer gave up: everything held is dropped; the transfer stops unless it had ended.
        mutating func abandon() -> Effects {
            guard !abandoned else { return Effects() }
            abandoned = true
            var effects = Effects(over: end == nil, stopTransfer: end == nil)
            effects.startWriter = discard()
            return effects
        }

        private mutating func failNow(_ error: any Error) -> Effects {
            end = .failed(ErrorBox(error: error))
            var effects = Effects(over: true, stopTransfer: true)
            effects.startWriter = discard()
            if consumerWaiting {
                consumerWaiting = false
                effects.wake = .failed(ErrorBox(error: error))
            }
            return effects
        }

        /// Drops everything held and asks for the file to be closed; whether the writer must start.
        private mutating func discard() -> Bool {
            dropped = true
            memory.removeAll()
            staged.removeAll()
            fileStart = fileEnd
            truncateWanted = false
            punchWanted = nil
            guard file != .none, file != .closed else { return false }
            closeWanted = true
            return wakeWriter()
        }

        // MARK: Consumer

        /// What the consumer gets next; `.wait` marks it waiting only when it `mayWait` (it has a continuation). At
        /// the end, the file (if one is open) is to be closed: the writer starts.
        mutating func nextRead(mayWait: Bool) -> (Read, Effects) {
            let read = read(mayWait: mayWait)
            // The consumer has taken everything (to the clean end or the producer's error): the file has nothing left
            // to hold.
            let atEnd =
                switch read {
                case .end, .failed: true
                case .chunk, .pieces, .readFile, .wait: false
                }
            return (read, Effects(startWriter: atEnd && closeIfDrained()))
        }

        /// What the consumer gets next, without the effects of reaching the end.
        private mutating func read(mayWait: Bool) -> Read {
            // A second iterator would take the first one's place and leave it waiting for ever.
            guard !consumerWaiting, reading == 0 else {
                return .failed(ErrorBox(error: ResponseBodyError.concurrentIteration))
            }
            if dropped { return .failed(droppedError) }
            if memory.count > 0 { return Self.read(memory.take(upTo: limits.catchUpSize)) }
            if fileEnd > fileStart {
                reading = Int(min(Int64(limits.readSize), fileEnd - fileStart))
                return .readFile(offset: fileStart, count: reading)
            }
            // Not yet written: it comes after what is being written. Nothing is written: take it from memory.
            if writing == 0, staged.count > 0 { return Self.read(staged.take(upTo: limits.catchUpSize)) }
            if writing == 0 {
                switch end {
                case .clean?: return .end
                case .failed(let error)?: return .failed(error)
                case nil: break
                }
            }
            if mayWait { consumerWaiting = true }
            return .wait
        }

        /// One piece as it is; several to be joined.
        private static func read(_ taken: [Data]) -> Read {
            taken.count == 1 ? .chunk(taken[0]) : .pieces(taken)
        }

        /// The consumer read back the bytes ``nextRead(mayWait:)`` asked for (or could not).
        mutating func didReadFile(_ result: Result<Data, ResponseBodyError>) -> (Read, Effects) {
            let count = reading
            reading = 0
            var effects = Effects()
            // A close asked for while the consumer read waited for it.
            if closeWanted { effects.startWriter = wakeWriter() }
            // The body failed or was abandoned meanwhile and dropped what it held: this read does not count.
            if dropped { return (.failed(droppedError), effects) }
            switch result {
            case .success(let data):
                fileStart += Int64(count)
                effects.startWriter = giveBackReadBytes() || effects.startWriter
                return (.chunk(data), effects)
            case .failure(let error):
                return (.failed(ErrorBox(error: error)), failNow(error))
            }
        }

        /// What a consumer gets once everything held was dropped: the body's error, or cancellation when it was
        /// abandoned.
        private var droppedError: ErrorBox {
            if case .failed(let error)? = end { return error }
            return ErrorBox(error: CancellationError())
        }

        /// After a read back: everything written read → truncate; else each ``Limits/giveBackStep`` read → punch.
        private mutating func giveBackReadBytes() -> Bool {
            if fileStart == fileEnd, writing == 0 {
                fileStart = 0
                fileEnd = 0
                givenBack = 0
                punchWanted = nil
                truncateWanted = true
                return wakeWriter()
            }
            let step = limits.giveBackStep
            let upTo = fileStart / step * step
            guard canPunch, upTo - givenBack >= step else { return false }
            // A punch not yet carried out is widened, never replaced: its range would stay on disk.
            punchWanted = (punchWanted?.lowerBound ?? givenBack)..<upTo
            givenBack = upTo
            return wakeWriter()
        }

        /// The consumer waits no more (its task was cancelled).
        mutating func stopWaiting() {
            consumerWaiting = false
        }

        /// What the waiting consumer gets now, if anything, into `effects`: it stops waiting.
        private mutating func wakeConsumer(into effects: inout Effects) {
            guard consumerWaiting else { return }
            consumerWaiting = false
            let (next, reading) = nextRead(mayWait: true)
            if next != .wait { effects.wake = next }
            effects.startWriter = reading.startWriter || effects.startWriter
        }

        // MARK: Writer

        /// Marks the writer running; whether it must be started (it was not running).
        private mutating func wakeWriter() -> Bool {
            guard !writerBusy else { return false }
            writerBusy = true
            return true
        }

        /// Asks for the file to be closed once the body is over and everything in it was taken; whether the writer
        /// must start.
        private mutating func closeIfDrained() -> Bool {
            guard isOver || abandoned, file == .open || file == .opening, !closeWanted else { return false }
            closeWanted = true
            return wakeWriter()
        }

        /// The writer's next action; `.idle` marks it stopped.
        mutating func nextWriterAction() -> WriterAction {
            if closeWanted {
                switch file {
                case .open where reading == 0 && writing == 0:
                    file = .closed
                    closeWanted = false
                    return .close
                case .open, .opening:
                    // A read (by the consumer) or the opening is still using it: the last of them closes.
                    writerBusy = false
                    return .idle
                case .none, .closed:
                    closeWanted = false
                }
            }
            if file == .none, staged.bytes > 0 {
                file = .opening
                return .open
            }
            guard file == .open else {
                writerBusy = false
                return .idle
            }
            if truncateWanted {
                truncateWanted = false
                return .truncate
            }
            if let range = punchWanted {
                punchWanted = nil
                return .punch(range)
            }
            if staged.bytes > 0 {
                let batch = staged.take(upTo: limits.writeBatch)
                writing = batch.reduce(0) { $0 + $1.count }
                return .write(batch, at: fileEnd)
            }
            writerBusy = false
            return .idle
        }

        /// The file was made, or could not be.
        mutating func writerDidOpen(_ result: Result<Void, ResponseBodyError>) -> Effects {
            switch result {
            case .success:
                file = .open
                return Effects()
            case .failure(let error):
                file = .closed
                closeWanted = false
                guard end == nil, !abandoned else { return Effects() }
                return failNow(error)
            }
        }

        /// The batch was written, or could not be.
        mutating func writerDidWrite(_ result: Result<Void, ResponseBodyError>) -> Effects {
            let count = writing
            writing = 0
            switch result {
            case .success:
                guard !closeWanted else { return Effects() }
                fileEnd += Int64(count)
                var effects = Effects()
                wakeConsumer(into: &effects)
                return effects
            case .failure(let error):
                // After the producer's end too: the batch is lost, so the body cannot end as if it were whole.
                guard !abandoned, !dropped else { return Effects() }
                // The batch is lost: the body cannot go on.
                fileStart = fileEnd
                return failNow(error)
            }
        }

        /// A hole was punched; `supported` is false when the file system cannot punch (space is then given back
        /// when the consumer catches up).
        mutating func writerDidPunch(supported: Bool) {
            if !supported { canPunch = false }
        }

        /// The file was closed.
        mutating func writerDidClose() {
            fileStart = 0
            fileEnd = 0
        }
    }

    /// Pieces of a body in order, small chunks appended to the last piece.
    struct Pieces: Equatable {
        private var list: [Data] = []
        private var head = 0
        private(set) var bytes = 0

        /// The number of pieces held.
        var count: Int { list.count - head }

        mutating func append(_ chunk: Data, coalescingBelow small: Int, upTo pieceSize: Int) {
            bytes += chunk.count
            if chunk.count < small, head < list.count, list[list.count - 1].count + chunk.count <= pieceSize {
                list[list.count - 1].append(chunk)
            } else {
                list.append(chunk)
            }
        }

        /// The first pieces, whole, up to `limit` bytes in all (always one piece at least).
        mutating func take(upTo limit: Int) -> [Data] {
            var taken: [Data] = []
            var size = 0
            while head < list.count, taken.isEmpty || size + list[head].count <= limit {
                size += list[head].count
                taken.append(list[head])
                head += 1
            }
            bytes -= size
            if head == list.count {
                list.removeAll(keepingCapacity: list.count <= 1024)
                head = 0
            }
            return taken
        }

        mutating func removeAll() {
            list.removeAll()
            head = 0
            bytes = 0
        }
    }
}
