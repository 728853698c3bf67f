import Foundation

/// A task executor with a thread of its own, for the few tests that measure time to the millisecond.
///
/// The test process runs hundreds of tests at once on a cooperative pool as wide as the machine has cores (two
/// here); a CPU-heavy test can keep both busy for seconds, and a timer that fires meanwhile cannot resume its
/// task. Work run under `withTaskExecutorPreference(executor)` — the engine's stages, its child tasks, their
/// sleeps — resumes on this thread instead, so the measurement sees NetKit, not the neighbours.
///
/// `@unchecked Sendable`: the job queue and the stop flag are only touched while holding `condition`.
final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    init() {
        let thread = Thread { [unowned self] in run() }
        thread.name = "DedicatedThreadExecutor"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the jobs enqueued so far have run.
    func shutdown() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty && stopped {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Runs `body` with its work preferring a fresh dedicated thread, then lets the thread end.
func onDedicatedExecutor<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
    let executor = DedicatedThreadExecutor()
    defer { executor.shutdown() }
    return try await withTaskExecutorPreference(executor) { try await body() }
}
