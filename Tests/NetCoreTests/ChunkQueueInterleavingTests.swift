import Foundation
import Testing

@testable import NetCore

/// ChunkQueue's machine driven by a producer, a consumer and the spill file's writer taking turns in a seeded order,
/// over a file that is an array: every read back and every change to the file is checked against what is in flight
/// beside it, as the queue runs them outside its lock.
///
/// What must hold at every turn: the consumer reads only bytes a finished write put in the file, and no write,
/// truncation, punch or close touches them while it reads; there is one writer at a time; memory holds at most its
/// bound, the spill road at most its limit, and the bytes waiting for the writer at most the write-ahead; what the
/// consumer received is what was pushed, in order; a body that ends leaves no file open.
@Suite("ChunkQueue state machine: producer, consumer and writer interleaved")
struct ChunkQueueInterleavingTests {
    typealias Machine = ChunkQueue.StateMachine

    /// SplitMix64: the same seed, the same turns.
    struct Turns {
        var state: UInt64

        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    /// The file as an array: `nil` where nothing was written or the space was given back.
    struct File {
        var bytes: [UInt8?] = []
        var isOpen = false
        var wasOpened = false
    }

    /// What the consumer is doing.
    enum Consumer: Equatable {
        case idle
        /// It looked without waiting and found nothing: next it asks again, ready to wait.
        case aboutToWait
        case waiting
        case reading(offset: Int64, count: Int)
        case done
        case failed
    }

    final class Run {
        var machine: Machine
        var turns: Turns
        var file = File()
        var consumer = Consumer.idle
        var writerRunning = false
        /// The writer's action carried out now (between taking it and reporting it).
        var writerAction: Machine.WriterAction?
        var pushed = Data()
        var received = Data()
        var finished = false
        var failure: (any Error)?

        init(limits: Machine.Limits, seed: UInt64) {
            machine = Machine(limits: limits)
            turns = Turns(state: seed)
        }

        /// Carries out what a step asks for.
        func apply(_ effects: Machine.Effects) {
            if let read = effects.wake {
                #expect(consumer == .waiting, "only a waiting consumer is woken")
                consumer = .idle
                take(read)
            }
            if effects.startWriter {
                #expect(!writerRunning, "a second writer was started beside the first")
                writerRunning = true
            }
        }

        func take(_ read: Machine.Read) {
            switch read {
            case .chunk(let data):
                receive(data)
            case .pieces(let pieces):
                #expect(pieces.count > 1, "one piece is handed over as a chunk")
                #expect(
                    pieces.reduce(0) { $0 + $1.count } <= machine.limits.catchUpSize,
                    "more pieces taken at once than the catch-up size allows")
                for piece in pieces { receive(piece) }
            case .readFile(let offset, let count):
                consumer = .reading(offset: offset, count: count)
                let range = Int(offset)..<Int(offset) + count
                #expect(file.isOpen && range.upperBound <= file.bytes.count, "a read of bytes not written yet")
                #expect(file.bytes[range.clamped(to: 0..<file.bytes.count)].allSatisfy { $0 != nil })
            case .wait:
                break
            case .end:
                consumer = .done
            case .failed(let box):
                consumer = .failed
                failure = failure ?? box.error
            }
        }

        /// Checks that `data` is what was pushed next (only the new bytes: the test stays linear in the body).
        func receive(_ data: Data) {
            let range = received.count..<received.count + data.count
            if range.upperBound > pushed.count || pushed.subdata(in: range) != data {
                Issue.record("the consumer received bytes out of order at \(received.count)")
            }
            received.append(data)
        }

        /// The range the consumer reads now, if it reads.
        var reading: Range<Int>? {
            guard case .reading(let offset, let count) = consumer else { return nil }
            return Int(offset)..<Int(offset) + count
        }

        func producerTurn(maxChunk: Int) {
            guard !finished else { return }
            let chunk = Data((0..<1 + turns.next(maxChunk)).map { UInt8(truncatingIfNeeded: pushed.count + $0) })
            let (push, effects) = machine.push(chunk)
            switch push {
            case .deliver:
                #expect(consumer == .waiting)
                consumer = .idle
                pushed.append(chunk)
                receive(chunk)
            case .kept:
                pushed.append(chunk)
            case .refused, .failed:
                finished = true
            }
            apply(effects)
        }

        func finish() {
            guard !finished else { return }
            finished = true
            apply(machine.finish(throwing: nil))
        }

        func consumerTurn() {
            switch consumer {
            case .idle, .aboutToWait:
                let mayWait = consumer == .aboutToWait
                let (read, effects) = machine.nextRead(mayWait: mayWait)
                consumer = read == .wait ? (mayWait ? .waiting : .aboutToWait) : .idle
                take(read)
                apply(effects)
            case .reading(let offset, let count):
                let range = Int(offset)..<Int(offset) + count
                let ok = file.isOpen && range.upperBound <= file.bytes.count
                let bytes = ok ? file.bytes[range].compactMap { $0 } : []
                #expect(ok && bytes.count == count, "the bytes read back changed while they were read")
                consumer = .idle
                let (read, effects) = machine.didReadFile(.success(Data(bytes)))
                take(read)
                apply(effects)
            case .waiting, .done, .failed:
                break
            }
        }

        func writerTurn() {
            guard writerRunning else { return }
            guard let action = writerAction else {
                let action = machine.nextWriterAction()
                if action == .idle {
                    writerRunning = false
                } else {
                    writerAction = action
                    check(action)
                }
                return
            }
            writerAction = nil
            switch action {
            case .open:
                file = File(bytes: [], isOpen: true, wasOpened: true)
                apply(machine.writerDidOpen(.success(())))
            case .write(let pieces, let offset):
                #expect(Int(offset) == file.bytes.count, "a write that does not append")
                for piece in pieces { file.bytes.append(contentsOf: piece.map { $0 }) }
                apply(machine.writerDidWrite(.success(())))
            case .truncate:
                file.bytes.removeAll()
            case .punch(let range):
                for index in Int(range.lowerBound)..<Int(range.upperBound) { file.bytes[index] = nil }
                machine.writerDidPunch(supported: true)
            case .close:
                file.isOpen = false
                file.bytes.removeAll()
                machine.writerDidClose()
            case .idle:
                break
            }
        }

        /// A writer's action must not touch what the consumer reads now.
        func check(_ action: Machine.WriterAction) {
            guard let reading else { return }
            switch action {
            case .write(_, let offset):
                #expect(Int(offset) >= reading.upperBound, "a write over bytes being read")
            case .truncate:
                Issue.record("the file was truncated while the consumer read it")
            case .punch(let range):
                #expect(Int(range.upperBound) <= reading.lowerBound, "a punch over bytes being read")
            case .close:
                Issue.record("the file was closed while the consumer read it")
            case .open, .idle:
                break
            }
        }

        /// Records an issue only when a bound is passed: an expectation per turn would cost more than the turn.
        func checkBounds() {
            let limits = machine.limits
            let waitingForWriter = machine.spilledBytes - (machine.fileEnd - machine.fileStart)
            if machine.memoryBytes > limits.memory || machine.spilledBytes > Int64(limits.spill)
                || waitingForWriter > Int64(limits.writeAhead)
            {
                let held = "\(machine.memoryBytes) in memory, \(machine.spilledBytes) spilled"
                Issue.record("past a bound: \(held), \(waitingForWriter) waiting for the writer")
            }
        }
    }

    /// The limits of a run, and how the turns are dealt.
    struct Setting: Sendable, CustomTestStringConvertible {
        let seed: UInt64
        /// Limits roomy enough that the body must end cleanly with every byte.
        let roomy: Bool
        var testDescription: String { "seed \(seed)\(roomy ? "" : ", tight limits")" }

        var limits: Machine.Limits {
            Machine.Limits(
                memory: 500, spill: roomy ? 1 << 20 : 3000, writeAhead: roomy ? 1 << 20 : 900, coalesceBelow: 64,
                pieceSize: 256, readSize: 256, giveBackStep: 4096, catchUpSize: 300)
        }
    }

    static let settings =
        (0..<12).map { Setting(seed: UInt64($0), roomy: true) }
        + (12..<20).map { Setting(seed: UInt64($0), roomy: false) }

    @Test("every turn keeps order, bounds and the file's bytes under a read", arguments: settings)
    func interleaved(_ setting: Setting) {
        let run = Run(limits: setting.limits, seed: setting.seed)
        // The producer pushes for a while, then ends the body; the others go on until the body is over for them.
        for turn in 0..<2000 {
            if turn == 1000 { run.finish() }
            switch run.turns.next(10) {
            // The consumer takes fewer turns than the producer: it falls behind, and the spill file is used.
            case 0..<5: run.producerTurn(maxChunk: 200)
            case 5..<7: run.consumerTurn()
            default: run.writerTurn()
            }
            run.checkBounds()
            if run.finished, run.consumer == .done || run.consumer == .failed, !run.writerRunning { break }
        }
        // Whatever is left, without the producer: every turn moves the consumer or the writer on.
        for _ in 0..<100_000 {
            guard run.consumer == .idle || run.consumer == .aboutToWait || run.reading != nil || run.writerRunning
            else { break }
            run.consumerTurn()
            run.writerTurn()
            run.checkBounds()
        }
        #expect(!run.writerRunning, "the writer never stopped")
        #expect(!run.file.isOpen, "the body is over and its file is still open")
        if setting.roomy {
            #expect(run.consumer == .done)
            #expect(run.failure == nil)
            #expect(run.received == run.pushed)
            #expect(run.file.wasOpened, "the consumer never fell behind: the test did not reach the spill")
        } else {
            #expect(run.consumer == .done || run.consumer == .failed)
            #expect(run.received.count <= run.pushed.count)
            if run.consumer == .failed {
                let limit = (run.failure as? StreamingError) == .bufferLimitExceeded(limitBytes: 3500)
                let behind = (run.failure as? ResponseBodyError)?.kind == .spillFailed
                #expect(limit || behind, "failed with \(String(describing: run.failure))")
            }
        }
    }
}
