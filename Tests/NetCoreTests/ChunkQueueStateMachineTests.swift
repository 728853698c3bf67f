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

        init(_ machine: Machine) { self.machine = machine }

        subscript<Value>(dynamicMember key: KeyPath<Machine, Value>) -> Value { machine[keyPath: key] }

        func push(_ chunk: Data) -> (Machine.Push, Effects) { machine.push(chunk) }
        func finish(throwing error: (any Error)?) -> Effects { machine.finish(throwing: error) }
        func fail(_ error: any Error) -> Effects { machine.fail(error) }
        func abandon() -> Effects { machine.abandon() }
        func nextRead(mayWait: Bool) -> Machine.Read { machine.nextRead(mayWait: mayWait) }
        func didReadFile(_ result: Result<Data, ResponseBodyError>) -> (Machine.Read, Effects) {
            machine.didReadFile(result)
        }
        func closeIfOver() -> Bool { machine.closeIfOver() }
        func nextWriterAction() -> Machine.WriterAction { machine.nextWriterAction() }
        func writerDidOpen(_ result: Result<Void, ResponseBodyError>) -> Effects { machine.writerDidOpen(result) }
        func writerDidWrite(_ result: Result<Void, ResponseBodyError>) -> Effects { machine.writerDidWrite(result) }
        func writerDidPunch(supported: Bool) { machine.writerDidPunch(supported: supported) }
        func writerDidClose() { machine.writerDidClose() }
    }

    /// Small limits; chunks are never coalesced, so every push is one piece the tests can name.
    static func machine(
        memory: Int = 100, spill: Int = 10_000, writeAhead: Int = 10_000, readSize: Int = 1000,
        giveBackStep: Int64 = 1 << 20
    ) -> Driven {
        Driven(
            Machine(
                limits: .init(
                    memory: memory, spill: spill, writeAhead: writeAhead, coalesceBelow: 1, pieceSize: 1,
                    readSize: readSize, giveBackStep: giveBackStep)))
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
        #expect(machine.peakMemoryBytes == 100)
        #expect(machine.nextWriterAction() == .idle)
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
        #expect(machine.nextRead(mayWait: true) == .end)
        // The consumer reached the end: the file is closed.
        #expect(machine.closeIfOver())
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

    @Test("a writer that falls behind holds at most writeAhead bytes: one more fails the body (memory + writeAhead)")
    func writerBehind() {
        let machine = Self.machine(memory: 100, writeAhead: 300)
        #expect(machine.push(Self.bytes(0, 100)) == (.kept, Effects()))
        #expect(machine.push(Self.bytes(100, 200)) == (.kept, Effects(startWriter: true)))
        #expect(machine.nextWriterAction() == .open)
        // The writer is stuck making the file: every later byte waits in memory for it.
        #expect(machine.push(Self.bytes(300, 100)) == (.kept, Effects()))
        #expect(machine.push(Self.bytes(400, 1)) == (.failed, Effects(over: true, stopTransfer: true)))
        #expect(Self.spillFailed(machine.nextRead(mayWait: true)))
        #expect(machine.peakMemoryBytes + Int(machine.peakSpilledBytes) <= 100 + 300)
        // The file made late is closed at once.
        #expect(machine.writerDidOpen(.success(())) == Effects())
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
}
