import Foundation
import Testing

@testable import NetCore

/// ChunkQueue's decisions as plain values, without a file, a lock or a task: where a chunk goes, what the consumer
/// reads next, what the spill file's writer does next, and when the body fails.
@Suite("ChunkQueue state machine")
struct ChunkQueueStateMachineTests {
    typealias Machine = ChunkQueue.StateMachine
    typealias Effects = Machine.Effects

    /// `count` bytes whose value is their offset modulo a prime, so a lost, doubled or reordered piece shows.
    static func bytes(_ offset: Int, _ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: (offset + $0) % 251) })
    }

    /// The machine behind a reference: `#expect` cannot hold a mutating call on a local value, so each step is
    /// forwarded by a method of this class (and each property by its key path).
    @dynamicMemberLookup
    final class Driven {
        private var machine: Machine
        /// What the last ``nextRead(mayWait:)`` asked of the queue besides the read.
        private(set) var readEffects = Effects()

        init(_ machine: Machine) { self.machine = machine }

        subscript<Value>(dynamicMember key: KeyPath<Machine, Value>) -> Value { machine[keyPath: key] }

        func push(_ chunk: Data) -> (Machine.Push, Effects) { machine.push(chunk) }
        func finish(throwing error: (any Error)?) -> Effects { machine.finish(throwing: error) }
        func fail(_ error: any Error) -> Effects { machine.fail(error) }
        func abandon() -> Effects { machine.abandon() }
        func nextRead(mayWait: Bool) -> Machine.Read {
            let (read, effects) = machine.nextRead(mayWait: mayWait)
            readEffects = effects
            return read
        }
        func didReadFile(_ result: Result<Data, ResponseBodyError>) -> (Machine.Read, Effects) {
            machine.didReadFile(result)
        }
        func nextWriterAction() -> Machine.WriterAction { machine.nextWriterAction() }
        func writerDidOpen(_ result: Result<Void, ResponseBodyError>) -> Effects { machine.writerDidOpen(result) }
        func writerDidWrite(_ result: Result<Void, ResponseBodyError>) -> Effects { machine.writerDidWrite(result) }
        func writerDidPunch(supported: Bool) { machine.writerDidPunch(supported: supported) }
        func writerDidClose() { machine.writerDidClose() }
    }

    /// Small limits; chunks are never coalesced and, unless `catchUpSize` says otherwise, read one at a time, so
    /// every push is one piece the tests can name.
    static func machine(
        memory: Int = 100, spill: Int = 10_000, writeAhead: Int = 10_000, readSize: Int = 1000,
        giveBackStep: Int64 = 1 << 20, catchUpSize: Int = 1
    ) -> Driven {
        Driven(
            Machine(
                limits: .init(
                    memory: memory, spill: spill, writeAhead: writeAhead, coalesceBelow: 1, pieceSize: 1,
                    readSize: readSize, giveBackStep: giveBackStep, catchUpSize: catchUpSize)))
    }

    /// Whether `read` is a failure whose error is `expected`.
    static func fails<Failure: Error & Equatable>(_ read: Machine.Read, with expected: Failure) -> Bool {
        guard case .failed(let box) = read else { return false }
        return (box.error as? Failure) == expected
    }

    /// Whether `read` failed with cancellation (what a consumer gets once the body was abandoned).
    static func cancelled(_ read: Machine.Read) -> Bool {
        guard case .failed(let box) = read else { return false }
        return box.error is CancellationError
    }

    /// Whether `read` failed with a spill failure.
    static func spillFailed(_ read: Machine.Read) -> Bool {
        guard case .failed(let box) = read else { return false }
        return (box.error as? ResponseBodyError)?.kind == .spillFailed
    }

    @Test("under the memory bound chunks are kept and read in order; the clean end follows them")
    func memoryOnly() {
        let machine = Self.machine()
        #expect(machine.push(Self.bytes(0, 60)) == (.kept, Effects()))
        #expect(machine.push(Self.bytes(60, 40)) == (.kept, Effects()))
        #expect(machine.finish(throwing: nil) == Effects(over: true))
        #expect(machine.nextRead(mayWait: true) == .chunk(Self.bytes(0, 60)))
        #expect(machine.nextRead(mayWait: true) == .chunk(Self.bytes(60, 40)))
        #expect(machine.nextRead(mayWait: true) == .end)
        // No file was made: reaching the end starts nothing.
        #expect(machine.readEffects == Effects())
        #expect(machine.peakMemoryBytes == 100)
        #expect(machine.nextWriterAction() == .idle)
    }

    @Test("a consumer that fell behind takes what waits in memory at once, at most catchUpSize bytes a read")
    func catchUp() {
        let machine = Self.machine(memory: 1000, catchUpSize: 100)
        for offset in stride(from: 0, to: 200, by: 40) {
            #expect(machine.push(Self.bytes(offset, 40)) == (.kept, Effects()))
        }
        #expect(machine.nextRead(mayWait: true) == .pieces([Self.bytes(0, 40), Self.bytes(40, 40)]))
        #expect(machine.nextRead(mayWait: true) == .pieces([Self.bytes(80, 40), Self.bytes(120, 40)]))
        // One piece is handed over as it is.
        #expect(machine.nextRead(mayWait: true) == .chunk(Self.bytes(160, 40)))
        #expect(machine.nextRead(mayWait: true) == .wait)
        // A piece larger than catchUpSize is never split or held back.
        #expect(machine.push(Self.bytes(200, 150)) == (.deliver, Effects()))
        #expect(machine.push(Self.bytes(350, 150)) == (.kept, Effects()))
        #expect(machine.push(Self.bytes(500, 10)) == (.kept, Effects()))
        #expect(machine.nextRead(mayWait: true) == .chunk(Self.bytes(350, 150)))
        #expect(machine.nextRead(mayWait: true) == .chunk(Self.bytes(500, 10)))
        #expect(machine.memoryBytes == 0)
    }

    @Test("what waits for the writer, not taken yet, is handed over at once as well")
    func catchUpFromStaged() {
        let machine = Self.machine(memory: 10, catchUpSize: 1000)
        #expect(machine.push(Self.bytes(0, 10)) == (.kept, Effects()))
        #expect(machine.push(Self.bytes(10, 20)) == (.kept, Effects(startWriter: true)))
        #expect(machine.push(Self.bytes(30, 20)) == (.kept, Effects()))
        #expect(machine.nextRead(mayWait: true) == .chunk(Self.bytes(0, 10)))
        #expect(machine.nextRead(mayWait: true) == .pieces([Self.bytes(10, 20), Self.bytes(30, 20)]))
        #expect(machine.nextWriterAction() == .idle)
        #expect(!machine.hasFile)
    }

    @Test("a waiting consumer is handed the chunk; the end wakes it")
    func waitingConsumer() {
        let machine = Self.machine()
        #expect(machine.nextRead(mayWait: true) == .wait)
        #expect(machine.consumerWaiting)
        #expect(machine.push(Self.bytes(0, 10)) == (.deliver, Effects()))
        #expect(!machine.consumerWaiting)
        #expect(machine.nextRead(mayWait: true) == .wait)
        #expect(machine.finish(throwing: nil) == Effects(wake: .end, over: true))
    }

    @Test("a second consumer asking while the first waits fails with concurrentIteration")
    func concurrentIteration() {
        let machine = Self.machine()
        #expect(machine.nextRead(mayWait: true) == .wait)
        #expect(Self.fails(machine.nextRead(mayWait: true), with: ResponseBodyError.concurrentIteration))
    }

    @Test("past memory: staged for the writer, written, read back in order, the file truncated, memory again")
    func spillRoad() {
        let machine = Self.machine()
        #expect(machine.push(Self.bytes(0, 60)) == (.kept, Effects()))
        // 120 > 100: this one, and every later one while the spill road holds bytes, goes to the writer.
        #expect(machine.push(Self.bytes(60, 60)) == (.kept, Effects(startWriter: true)))
        #expect(machine.push(Self.bytes(120, 30)) == (.kept, Effects()))
        #expect(machine.spilledBytes == 90)
        #expect(machine.nextWriterAction() == .open)
        #expect(machine.writerDidOpen(.success(())) == Effects())
        #expect(machine.nextWriterAction() == .write([Self.bytes(60, 60), Self.bytes(120, 30)], at: 0))
        // Memory first; the batch being written is not readable yet: the consumer waits for the write.
        #expect(machine.nextRead(mayWait: true) == .chunk(Self.bytes(0, 60)))
        #expect(machine.nextRead(mayWait: true) == .wait)
        #expect(machine.writerDidWrite(.success(())) == Effects(wake: .readFile(offset: 0, count: 90)))
        #expect(machine.nextWriterAction() == .idle)
        // Everything written was read back: the file is emptied and its offsets start again at 0.
        let (read, effects) = machine.didReadFile(.success(Self.bytes(60, 90)))
        #expect(read == .chunk(Self.bytes(60, 90)))
        #expect(effects == Effects(startWriter: true))
        #expect(machine.nextWriterAction() == .truncate)
        #expect(machine.nextWriterAction() == .idle)
        #expect(machine.fileStart == 0 && machine.fileEnd == 0)
        // The spill road is empty: memory takes bytes again.
        #expect(machine.push(Self.bytes(150, 50)) == (.kept, Effects()))
        #expect(machine.finish(throwing: nil) == Effects(over: true))
        #expect(machine.nextRead(mayWait: true) == .chunk(Self.bytes(150, 50)))
        // The consumer reached the end: the file is closed.
        #expect(machine.nextRead(mayWait: true) == .end)
        #expect(machine.readEffects == Effects(startWriter: true))
        #expect(machine.nextWriterAction() == .close)
        machine.writerDidClose()
        #expect(machine.nextWriterAction() == .idle)
        #expect(machine.peakMemoryBytes <= 100)
        #expect(machine.peakSpilledBytes == 90)
    }

    @Test("bytes the writer has not taken yet are handed to the consumer from memory: no file is made")
    func stagedReadDirectly() {
        let machine = Self.machine(memory: 10)
        #expect(machine.push(Self.bytes(0, 10)) == (.kept, Effects()))
        #expect(machine.push(Self.bytes(10, 20)) == (.kept, Effects(startWriter: true)))
        #expect(machine.nextRead(mayWait: true) == .chunk(Self.bytes(0, 10)))
        #expect(machine.nextRead(mayWait: true) == .chunk(Self.bytes(10, 20)))
        #expect(machine.nextWriterAction() == .idle)
        #expect(!machine.hasFile)
    }

    @Test("read back but not caught up: the space read is given back a step at a time, until a punch cannot")
    func punchesReadBytes() {
        let machine = Self.machine(memory: 10, readSize: 100, giveBackStep: 200)
        #expect(machine.push(Self.bytes(0, 10)) == (.kept, Effects()))
        #expect(machine.push(Self.bytes(10, 500)) == (.kept, Effects(startWriter: true)))
        #expect(machine.nextWriterAction() == .open)
        #expect(machine.writerDidOpen(.success(())) == Effects())
        #expect(machine.nextWriterAction() == .write([Self.bytes(10, 500)], at: 0))
        #expect(machine.writerDidWrite(.success(())) == Effects())
        #expect(machine.nextWriterAction() == .idle)
        #expect(machine.nextRead(mayWait: true) == .chunk(Self.bytes(0, 10)))
        #expect(machine.nextRead(mayWait: true) == .readFile(offset: 0, count: 100))
        #expect(machine.didReadFile(.success(Self.bytes(10, 100))) == (.chunk(Self.bytes(10, 100)), Effects()))
        #expect(machine.nextRead(mayWait: true) == .readFile(offset: 100, count: 100))
        let (_, effects) = machine.didReadFile(.success(Self.bytes(110, 100)))
        #expect(effects == Effects(startWriter: true))
        // Asked for again before the writer punched: the pending punch is widened, not replaced.
        #expect(machine.nextRead(mayWait: true) == .readFile(offset: 200, count: 100))
        #expect(machine.didReadFile(.success(Self.bytes(210, 100))).1 == Effects())
        #expect(machine.nextRead(mayWait: true) == .readFile(offset: 300, count: 100))
        #expect(machine.didReadFile(.success(Self.bytes(310, 100))).1 == Effects())
        #expect(machine.nextWriterAction() == .punch(0..<400))
        // This file system cannot punch: space is given back when the consumer catches up instead.
        machine.writerDidPunch(supported: false)
        #expect(machine.nextWriterAction() == .idle)
        #expect(machine.nextRead(mayWait: true) == .readFile(offset: 400, count: 100))
        #expect(machine.didReadFile(.success(Self.bytes(410, 100))).1 == Effects(startWriter: true))
        #expect(machine.nextWriterAction() == .truncate)
    }

    @Test("without a spill the body fails past the memory bound, drops what it held and stops the transfer")
    func noSpill() {
        let machine = Self.machine(spill: 0)
        #expect(machine.push(Self.bytes(0, 100)) == (.kept, Effects()))
        #expect(machine.push(Self.bytes(100, 1)) == (.failed, Effects(over: true, stopTransfer: true)))
        #expect(machine.memoryBytes == 0)
        #expect(Self.fails(machine.nextRead(mayWait: true), with: StreamingError.bufferLimitExceeded(limitBytes: 100)))
        #expect(machine.push(Self.bytes(101, 1)) == (.refused, Effects()))
    }

    @Test("past the spill limit the body fails with both limits named, and the open file is closed")
    func pastSpillLimit() {
        let machine = Self.machine(spill: 150)
        #expect(machine.push(Self.bytes(0, 100)) == (.kept, Effects()))
        #expect(machine.push(Self.bytes(100, 150)) == (.kept, Effects(startWriter: true)))
        #expect(machine.nextWriterAction() == .open)
        #expect(machine.writerDidOpen(.success(())) == Effects())
        #expect(machine.nextWriterAction() == .write([Self.bytes(100, 150)], at: 0))
        #expect(machine.writerDidWrite(.success(())) == Effects())
        #expect(machine.nextWriterAction() == .idle)
        #expect(
            machine.push(Self.bytes(250, 1)) == (.failed, Effects(over: true, stopTransfer: true, startWriter: true)))
        #expect(machine.nextWriterAction() == .close)
        machine.writerDidClose()
        #expect(machine.nextWriterAction() == .idle)
        #expect(Self.fails(machine.nextRead(mayWait: true), with: StreamingError.bufferLimitExceeded(limitBytes: 250)))
        #expect(machine.peakSpilledBytes <= 150)
    }

    @Test(
        "a writer that falls behind holds at most writeAhead bytes: one more ends the body, after what it holds (memory + writeAhead)"
    )
    func writerBehind() {
        let machine = Self.machine(memory: 100, writeAhead: 300)
        #expect(machine.push(Self.bytes(0, 100)) == (.kept, Effects()))
        #expect(machine.push(Self.bytes(100, 200)) == (.kept, Effects(startWriter: true)))
        #expect(machine.nextWriterAction() == .open)
        // The writer is stuck making the file: every later byte waits in memory for it.
        #expect(machine.push(Self.bytes(300, 100)) == (.kept, Effects()))
        #expect(machine.push(Self.bytes(400, 1)) == (.failed, Effects(over: true, stopTransfer: true)))
        #expect(machine.push(Self.bytes(400, 1)) == (.refused, Effects()))
        #expect(machine.peakMemoryBytes + Int(machine.peakSpilledBytes) <= 100 + 300)
        // What arrived before is still delivered, in order: memory, then what the late file is given; then the error.
        #expect(machine.nextRead(mayWait: true) == .chunk(Self.bytes(0, 100)))
        // Not taken by the writer yet: handed over from memory.
        #expect(machine.nextRead(mayWait: true) == .chunk(Self.bytes(100, 200)))
        #expect(machine.nextRead(mayWait: true) == .chunk(Self.bytes(300, 100)))
        #expect(Self.spillFailed(machine.nextRead(mayWait: true)))
        // The file made late is closed at once.
        #expect(machine.writerDidOpen(.success(())) == Effects())
        #expect(machine.nextWriterAction() == .close)
    }

    @Test("the writer takes at most writeBatch bytes a write (a piece at least), so memory comes back as it writes")
    func writeBatches() {
        let machine = Driven(
            Machine(
                limits: .init(
                    memory: 10, spill: 10_000, writeAhead: 10_000, coalesceBelow: 1, pieceSize: 1, writeBatch: 100)))
        #expect(machine.push(Self.bytes(0, 10)) == (.kept, Effects()))
        for offset in stride(from: 10, to: 250, by: 60) { _ = machine.push(Self.bytes(offset, 60)) }
        #expect(machine.nextWriterAction() == .open)
        #expect(machine.writerDidOpen(.success(())) == Effects())
        #expect(machine.nextWriterAction() == .write([Self.bytes(10, 60)], at: 0))
        #expect(machine.writing == 60)
        #expect(machine.writerDidWrite(.success(())) == Effects())
        #expect(machine.nextWriterAction() == .write([Self.bytes(70, 60)], at: 60))
        #expect(machine.writerDidWrite(.success(())) == Effects())
        // A piece larger than the batch still goes whole.
        _ = machine.push(Self.bytes(250, 150))
        #expect(machine.nextWriterAction() == .write([Self.bytes(130, 60)], at: 120))
        #expect(machine.writerDidWrite(.success(())) == Effects())
        #expect(machine.nextWriterAction() == .write([Self.bytes(190, 60)], at: 180))
        #expect(machine.writerDidWrite(.success(())) == Effects())
        #expect(machine.nextWriterAction() == .write([Self.bytes(250, 150)], at: 240))
    }

    @Test("a write that fails after the producer's clean end fails the body: it never ends as if whole")
    func writeFailsAfterEnd() {
        let machine = Self.machine(memory: 10)
        #expect(machine.push(Self.bytes(0, 20)) == (.kept, Effects(startWriter: true)))
        #expect(machine.finish(throwing: nil) == Effects(over: true))
        #expect(machine.nextWriterAction() == .open)
        #expect(machine.writerDidOpen(.success(())) == Effects())
        #expect(machine.nextWriterAction() == .write([Self.bytes(0, 20)], at: 0))
        #expect(machine.nextRead(mayWait: true) == .wait)
        let effects = machine.writerDidWrite(.failure(.spillFailed(reason: "no space left")))
        #expect(effects.wake.map(Self.spillFailed) == true)
        #expect(machine.nextWriterAction() == .close)
    }

    @Test("a failed write fails the body and closes the file")
    func writeFails() {
        let machine = Self.machine(memory: 10)
        #expect(machine.push(Self.bytes(0, 20)) == (.kept, Effects(startWriter: true)))
        #expect(machine.nextWriterAction() == .open)
        #expect(machine.writerDidOpen(.success(())) == Effects())
        #expect(machine.nextWriterAction() == .write([Self.bytes(0, 20)], at: 0))
        #expect(machine.nextRead(mayWait: true) == .wait)
        let effects = machine.writerDidWrite(.failure(.spillFailed(reason: "no space left")))
        // The writer is still running (it reported the write): it closes the file next, without a new start.
        #expect(effects.over && effects.stopTransfer && !effects.startWriter)
        #expect(effects.wake.map(Self.spillFailed) == true)
        #expect(machine.nextWriterAction() == .close)
    }

    @Test("a file that cannot be made fails the body")
    func openFails() {
        let machine = Self.machine(memory: 10)
        #expect(machine.push(Self.bytes(0, 20)) == (.kept, Effects(startWriter: true)))
        #expect(machine.nextWriterAction() == .open)
        #expect(
            machine.writerDidOpen(.failure(.spillFailed(reason: "read-only")))
                == Effects(over: true, stopTransfer: true))
        #expect(machine.nextWriterAction() == .idle)
        #expect(Self.spillFailed(machine.nextRead(mayWait: true)))
    }

    @Test("fail wakes the waiting consumer with the error and stops the transfer; after the end it does nothing")
    func failNow() {
        let machine = Self.machine()
        #expect(machine.nextRead(mayWait: true) == .wait)
        let timeout = StreamingError.invalidResponse
        #expect(
            machine.fail(timeout)
                == Effects(wake: .failed(.init(error: timeout)), over: true, stopTransfer: true))
        #expect(machine.fail(timeout) == Effects())
        let ended = Self.machine()
        #expect(ended.finish(throwing: nil) == Effects(over: true))
        #expect(ended.fail(timeout) == Effects())
    }

    @Test("abandoning drops what is held and stops the transfer only while it runs")
    func abandon() {
        let machine = Self.machine()
        #expect(machine.push(Self.bytes(0, 10)) == (.kept, Effects()))
        #expect(machine.abandon() == Effects(over: true, stopTransfer: true))
        #expect(machine.abandon() == Effects())
        #expect(machine.push(Self.bytes(10, 10)) == (.refused, Effects()))
        #expect(Self.cancelled(machine.nextRead(mayWait: true)))
        let ended = Self.machine()
        #expect(ended.finish(throwing: nil) == Effects(over: true))
        #expect(ended.abandon() == Effects())
    }

    // MARK: Tables

    struct LimitsRow: Sendable, CustomTestStringConvertible {
        let bufferLimit: Int
        let spill: Int?
        let writeAhead: Int
        /// Memory, spill and write-ahead as the machine keeps them.
        let expected: (memory: Int, spill: Int, writeAhead: Int)
        var testDescription: String {
            "buffer \(bufferLimit), spill \(spill.map(String.init) ?? "none"), ahead \(writeAhead)"
        }
    }

    static let limitsRows: [LimitsRow] = [
        LimitsRow(bufferLimit: 100, spill: nil, writeAhead: 10, expected: (100, 0, 1)),
        LimitsRow(bufferLimit: 0, spill: nil, writeAhead: 10, expected: (1, 0, 1)),
        LimitsRow(bufferLimit: -5, spill: 0, writeAhead: 10, expected: (1, 0, 1)),
        LimitsRow(bufferLimit: 100, spill: -1, writeAhead: 10, expected: (100, 0, 1)),
        LimitsRow(bufferLimit: 100, spill: 1000, writeAhead: 0, expected: (100, 1000, 1)),
        LimitsRow(bufferLimit: 100, spill: 1000, writeAhead: 32 << 20, expected: (100, 1000, 32 << 20)),
        LimitsRow(bufferLimit: .max, spill: .max, writeAhead: .max, expected: (.max, .max, .max)),
    ]

    @Test(
        "a queue's limits: a spill limit of 0 or less is no spill; memory and the write-ahead hold a byte at least",
        arguments: limitsRows)
    func limits(_ row: LimitsRow) {
        let spill = row.spill.map {
            ChunkQueue.Spill(limit: $0, directory: URL(filePath: "/nonexistent"), writeAhead: row.writeAhead)
        }
        let limits = Machine.Limits(bufferLimit: row.bufferLimit, spill: spill)
        #expect(limits.memory == row.expected.memory)
        #expect(limits.spill == row.expected.spill)
        #expect(limits.writeAhead == row.expected.writeAhead)
    }

    /// A machine brought to a state, a chunk pushed, and what the push must lead to.
    struct PushRow: Sendable, CustomTestStringConvertible {
        let name: String
        var spill = 1000
        var writeAhead = 300
        let setup: @Sendable (Driven) -> Void
        let chunk: Int
        let push: Machine.Push
        let effects: Effects
        /// Unread bytes in memory and on the spill road after the push.
        let held: (memory: Int, spilled: Int64)
        var testDescription: String { name }
    }

    /// Memory holds 100 bytes in every row.
    static let pushRows: [PushRow] = [
        PushRow(
            name: "an empty chunk is kept and changes nothing", setup: { _ in }, chunk: 0, push: .kept,
            effects: Effects(), held: (0, 0)),
        PushRow(
            name: "a waiting consumer with nothing held is handed the chunk",
            setup: { _ = $0.nextRead(mayWait: true) }, chunk: 10, push: .deliver, effects: Effects(), held: (0, 0)),
        PushRow(
            name: "a consumer that looked without waiting is not handed it: memory keeps it",
            setup: { _ = $0.nextRead(mayWait: false) }, chunk: 10, push: .kept, effects: Effects(), held: (10, 0)),
        PushRow(
            name: "up to the memory bound: kept in memory", setup: { _ = $0.push(bytes(0, 60)) }, chunk: 40,
            push: .kept, effects: Effects(), held: (100, 0)),
        PushRow(
            name: "past the memory bound: staged for the writer, which starts", setup: { _ = $0.push(bytes(0, 100)) },
            chunk: 1, push: .kept, effects: Effects(startWriter: true), held: (100, 1)),
        PushRow(
            name: "while the writer runs, a later chunk is staged without a second start",
            setup: {
                _ = $0.push(bytes(0, 100))
                _ = $0.push(bytes(100, 1))
            }, chunk: 1, push: .kept, effects: Effects(), held: (100, 2)),
        PushRow(
            name: "once bytes are on the spill road, later ones follow them there though memory has room",
            setup: {
                _ = $0.push(bytes(0, 90))
                _ = $0.push(bytes(90, 20))
                _ = $0.nextRead(mayWait: false)
            }, chunk: 10, push: .kept, effects: Effects(), held: (0, 30)),
        PushRow(
            name: "a consumer waiting for a batch being written: the chunk queues behind the batch",
            setup: {
                _ = $0.push(bytes(0, 100))
                _ = $0.push(bytes(100, 50))
                _ = $0.nextWriterAction()
                _ = $0.writerDidOpen(.success(()))
                _ = $0.nextWriterAction()
                _ = $0.nextRead(mayWait: true)
                _ = $0.nextRead(mayWait: true)
            }, chunk: 10, push: .kept, effects: Effects(), held: (0, 60)),
        PushRow(
            name: "past the spill limit: the body fails now and drops what it held",
            setup: {
                _ = $0.push(bytes(0, 100))
                _ = $0.push(bytes(100, 300))
            }, chunk: 701, push: .failed, effects: Effects(over: true, stopTransfer: true), held: (0, 0)),
        PushRow(
            name: "the disk fell behind (past the write-ahead): the body takes no more, keeping what it holds",
            setup: {
                _ = $0.push(bytes(0, 100))
                _ = $0.push(bytes(100, 300))
            }, chunk: 1, push: .failed, effects: Effects(over: true, stopTransfer: true), held: (100, 300)),
        PushRow(
            name: "the disk fell behind with a batch being written: the body takes no more, keeping what it holds",
            setup: {
                _ = $0.push(bytes(0, 100))
                _ = $0.push(bytes(100, 300))
                _ = $0.nextWriterAction()
                _ = $0.writerDidOpen(.success(()))
                _ = $0.nextWriterAction()
            }, chunk: 1, push: .failed, effects: Effects(over: true, stopTransfer: true), held: (100, 300)),
        PushRow(
            name: "without a spill: the body fails past the memory bound", spill: 0,
            setup: { _ = $0.push(bytes(0, 100)) }, chunk: 1, push: .failed,
            effects: Effects(over: true, stopTransfer: true), held: (0, 0)),
        PushRow(
            name: "a chunk for a waiting consumer is handed over whatever its size", spill: 0,
            setup: { _ = $0.nextRead(mayWait: true) }, chunk: 101, push: .deliver, effects: Effects(), held: (0, 0)),
        PushRow(
            name: "a consumer waiting behind a batch being written is woken with the failure",
            setup: {
                _ = $0.push(bytes(0, 100))
                _ = $0.push(bytes(100, 50))
                _ = $0.nextWriterAction()
                _ = $0.writerDidOpen(.success(()))
                _ = $0.nextWriterAction()
                _ = $0.nextRead(mayWait: true)
                _ = $0.nextRead(mayWait: true)
            }, chunk: 951, push: .failed,
            effects: Effects(
                wake: .failed(.init(error: StreamingError.bufferLimitExceeded(limitBytes: 1100))), over: true,
                stopTransfer: true), held: (0, 50)),
        PushRow(
            name: "after the end: refused", setup: { _ = $0.finish(throwing: nil) }, chunk: 1, push: .refused,
            effects: Effects(), held: (0, 0)),
        PushRow(
            name: "after the consumer gave up: refused", setup: { _ = $0.abandon() }, chunk: 1, push: .refused,
            effects: Effects(), held: (0, 0)),
        PushRow(
            name: "after a failure: refused", setup: { _ = $0.fail(StreamingError.invalidResponse) }, chunk: 1,
            push: .refused, effects: Effects(), held: (0, 0)),
    ]

    @Test("where a pushed chunk goes", arguments: pushRows)
    func push(_ row: PushRow) {
        let machine = Self.machine(spill: row.spill, writeAhead: row.writeAhead)
        row.setup(machine)
        #expect(machine.push(Self.bytes(1000, row.chunk)) == (row.push, row.effects))
        #expect(machine.memoryBytes == row.held.memory)
        #expect(machine.spilledBytes == row.held.spilled)
    }

    /// How the body reached its end, and what the consumer's reading the end asks for.
    struct EndRow: Sendable, CustomTestStringConvertible {
        let name: String
        let setup: @Sendable (Driven) -> Void
        let effects: Effects
        let writer: Machine.WriterAction
        var testDescription: String { name }
    }

    static let endRows: [EndRow] = [
        EndRow(
            name: "no file was made: the end starts nothing",
            setup: {
                _ = $0.push(bytes(0, 10))
                _ = $0.finish(throwing: nil)
                _ = $0.nextRead(mayWait: false)
            }, effects: Effects(), writer: .idle),
        EndRow(
            name: "the producer ended while the file held bytes: the consumer's end closes the file",
            setup: {
                _ = $0.push(bytes(0, 100))
                _ = $0.push(bytes(100, 50))
                _ = $0.nextWriterAction()
                _ = $0.writerDidOpen(.success(()))
                _ = $0.nextWriterAction()
                _ = $0.writerDidWrite(.success(()))
                _ = $0.nextWriterAction()
                _ = $0.finish(throwing: nil)
                _ = $0.nextRead(mayWait: false)
                _ = $0.nextRead(mayWait: false)
                _ = $0.didReadFile(.success(bytes(100, 50)))
                _ = $0.nextWriterAction()
                _ = $0.nextWriterAction()
            }, effects: Effects(startWriter: true), writer: .close),
        EndRow(
            name: "the producer ended after the consumer had emptied the file: the close was asked for already",
            setup: {
                _ = $0.push(bytes(0, 100))
                _ = $0.push(bytes(100, 50))
                _ = $0.nextWriterAction()
                _ = $0.writerDidOpen(.success(()))
                _ = $0.nextWriterAction()
                _ = $0.writerDidWrite(.success(()))
                _ = $0.nextRead(mayWait: false)
                _ = $0.nextRead(mayWait: false)
                _ = $0.didReadFile(.success(bytes(100, 50)))
                _ = $0.finish(throwing: nil)
            }, effects: Effects(), writer: .close),
    ]

    @Test("the consumer reaching the end closes an open file once", arguments: endRows)
    func end(_ row: EndRow) {
        let machine = Self.machine()
        row.setup(machine)
        #expect(machine.nextRead(mayWait: true) == .end)
        #expect(machine.readEffects == row.effects)
        #expect(machine.nextWriterAction() == row.writer)
    }
}
