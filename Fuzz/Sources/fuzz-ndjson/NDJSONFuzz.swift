import CLibFuzzer
import FuzzSupport
import NetCore
import NetStreaming
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A body that hands out its chunks without ever suspending.
struct Body: AsyncSequence, Sendable {
    typealias Element = Data
    let chunks: [Data]

    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<Data>
        mutating func next() async -> Data? { rest.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: chunks[...]) }
}

/// How a failure reads in a comparison: a streaming error by its value, any decoding error alike.
func describe(_ error: any Error) -> String {
    if let error = error as? StreamingError { return "error: \(error)" }
    return "error: \(type(of: error))"
}

/// Runs the jobs of a task on the thread that drains it: the fuzzing thread, without handing each input to
/// Swift's thread pool and waiting for it (which costs more than the parsing itself).
final class InlineExecutor: TaskExecutor, @unchecked Sendable {
    // Touched only by the fuzzing thread: the task is created, enqueues its jobs and finishes on it.
    private var jobs: [UnownedJob] = []

    func enqueue(_ job: consuming ExecutorJob) {
        jobs.append(UnownedJob(job))
    }

    /// Runs jobs until none is left.
    func drain() {
        while !jobs.isEmpty {
            jobs.removeFirst().runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

let executor = InlineExecutor()

/// The records (and the error) NDJSONSequence yields for `chunks`, read to the end on this thread.
func records(of chunks: [Data], limit: Int) -> [String] {
    let result = Mutex<[String]?>(nil)
    Task(executorPreference: executor) {
        var out: [String] = []
        do {
            for try await record in NDJSONSequence(Body(chunks: chunks), of: JSONValue.self, maximumLineLength: limit) {
                out.append(String(reflecting: record))
            }
        } catch {
            out.append(describe(error))
        }
        result.withLock { $0 = out }
    }
    executor.drain()
    guard let out = result.withLock({ $0 }) else {
        fatalError("the task suspended on something other than its body")
    }
    return out
}

/// What the documentation promises: LineSplitter's lines, empty ones skipped, each decoded until one fails.
func expectedRecords(of payload: [UInt8], limit: Int) -> [String] {
    var splitter = LineSplitter(maximumLineLength: limit)
    splitter.push(Data(payload))
    splitter.finish()
    var out: [String] = []
    do {
        while let line = try splitter.nextLineData() {
            guard !line.isEmpty else { continue }
            out.append(String(reflecting: try JSONDecoder().decode(JSONValue.self, from: line)))
        }
    } catch {
        out.append(describe(error))
    }
    return out
}

/// NDJSONSequence: the records and the error must not depend on the chunking, and must be what decoding each
/// non-empty line on its own gives.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNDJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limitByte = input.byte()
    let limit = limitByte >= 0xF0 ? LineSplitter.defaultMaximumLineLength : Int(limitByte)
    let sizes = (0..<3).map { _ in Int(input.byte() % 17) + 1 }
    let payload = input.remainder()
    let pieces = records(of: chunks(of: payload, sizes: sizes), limit: limit)
    let expected = expectedRecords(of: payload, limit: limit)
    check(pieces == expected, "chunks \(sizes) give \(pieces), decoding line by line gives \(expected)")
    return 0
}

/// The executable's entry point (SwiftPM links `main` to it): libFuzzer's driver, on this harness.
@_cdecl("fuzz_ndjson_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    netkit_fuzz_run(argc, argv, fuzzNDJSON)
}
