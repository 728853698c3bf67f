import Foundation
import NetKitLock
import Testing
@testable import NetAuth
import NetCore
import NetKitTesting

/// Holds and refresh marks belong to the line or coordinator that set them.
@Suite("Scopes belong to their instance")
struct InstanceScopeTests {
    func observed(_ line: HoldTheLine) -> AsyncStream<Int> {
        let (counts, report) = AsyncStream.makeStream(of: Int.self)
        line.setWaitingCountObserver { report.yield($0) }
        return counts
    }

    func waitFor(_ count: Int, in counts: AsyncStream<Int>) async {
        for await value in counts where value == count { return }
    }

    @Test("the holder of one line waits at another held line")
    func holderOfOneLineWaitsAtAnother() async throws {
        let first = HoldTheLine()
        let second = HoldTheLine()
        let secondCounts = observed(second)
        let stub = StubTransport { _, _ in .status(200) }
        let throughSecond = RequestExecutor(transport: stub, line: second)
        second.hold()
        let holder = Task {
            try await first.withLineHeld { try await throughSecond.send(Ping(), baseURL: authBase).statusCode }
        }
        await waitFor(1, in: secondCounts)
        #expect(stub.requestCount == 0)
        second.release()
        #expect(try await holder.value == 200)
    }

    @Test("a task the holder started that outlives the hold waits like everyone else")
    func spawnedTaskOutlivingTheHold() async throws {
        let line = HoldTheLine()
        let counts = observed(line)
        let stub = StubTransport { _, _ in .status(200) }
        let executor = RequestExecutor(transport: stub, line: line)
        let (go, start) = AsyncStream.makeStream(of: Void.self)
        let spawned = try await line.withLineHeld {
            Task {
                for await _ in go { break }
                return try await executor.send(Ping(), baseURL: authBase).statusCode
            }
        }
        #expect(!line.isHeld)
        line.hold()
        start.yield()
        await waitFor(1, in: counts)
        #expect(stub.requestCount == 0)
        line.release()
        #expect(try await spawned.value == 200)
    }

    /// Runs every job it is given, one at a time, in the order given: tasks that prefer it run in the order they
    /// were resumed.
    final class SerialTaskExecutor: TaskExecutor {
        private let queue = DispatchQueue(label: "InstanceScopeTests.arrivalOrder")
        /// The waiters' indices, in the order they ran after the line opened.
        let order = Lock<[Int]>([])

        /// Returns once the job running now, and those queued before this call, have run: every waiter counted by
        /// the line has then also suspended (the line counts a waiter just before its task suspends).
        func drain() {
            queue.sync {}
        }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let executor = asUnownedTaskExecutor()
            queue.async { job.runSynchronously(on: executor) }
        }
    }

    @Test("waiters are released in arrival order")
    func arrivalOrder() async throws {
        let line = HoldTheLine()
        let counts = observed(line)
        line.hold()
        // The waiters run on one serial executor, so they run in the order the line resumes them, and the line is
        // released only once all of them have suspended. (On the main actor, released as soon as the line had
        // counted the fifth, they did not always: under the thread sanitizer two of five once ran swapped.)
        let executor = SerialTaskExecutor()
        var waiters: [Task<Void, any Error>] = []
        for index in 0..<5 {
            waiters.append(
                Task(executorPreference: executor) {
                    try await line.waitUntilOpen()
                    executor.order.withLock { $0.append(index) }
                })
            await waitFor(index + 1, in: counts)
        }
        executor.drain()
        line.release()
        for waiter in waiters { try await waiter.value }
        #expect(executor.order.withLock { $0 } == [0, 1, 2, 3, 4])
    }

    @Test("a refresh in one coordinator does not switch off refresh in another")
    func refreshInsideAnotherRefresh() async throws {
        let inner = TokenRefreshCoordinator {}
        let outer = TokenRefreshCoordinator {
            // The outer refresher's own request gets 401 from another service: that service's refresh must run.
            let generation = await inner.generation()
            try await inner.recover(fromUnauthorizedAt: generation)
        }
        try await outer.recover(fromUnauthorizedAt: 0)
        #expect(await inner.refreshCount == 1)
        #expect(await outer.refreshCount == 1)
    }

    @Test("inside its own refresh a coordinator refuses to wait for itself; a task started there may refresh later")
    func ownRefreshAndItsTasks() async throws {
        let later = Lock<Task<Void, any Error>?>(nil)
        let (go, start) = AsyncStream.makeStream(of: Void.self)
        let reference = Lock<TokenRefreshCoordinator?>(nil)
        let coordinator = TokenRefreshCoordinator {
            let coordinator = reference.withLock { $0 }!
            await #expect(throws: NetworkError.unauthorized) { try await coordinator.recover(fromUnauthorizedAt: 0) }
            later.withLock {
                $0 = Task {
                    for await _ in go { break }
                    try await coordinator.recover(fromUnauthorizedAt: await coordinator.generation())
                }
            }
        }
        reference.withLock { $0 = coordinator }
        try await coordinator.recover(fromUnauthorizedAt: 0)
        start.yield()
        try await later.withLock { $0 }!.value
        #expect(await coordinator.refreshCount == 2)
    }

    @Test("a refresher that never returns times out, fails its waiters and releases the held line")
    func refreshTimeout() async throws {
        let parked = Lock<CheckedContinuation<Void, Never>?>(nil)
        let line = HoldTheLine()
        let coordinator = TokenRefreshCoordinator(policy: TokenRefreshPolicy(timeout: .milliseconds(50)), line: line) {
            // Ignores cancellation on purpose: the timeout must not depend on the refresher's good will.
            await withCheckedContinuation { continuation in parked.withLock { $0 = continuation } }
        }
        let clock = ContinuousClock()
        let started = clock.now
        await #expect(throws: TokenRefreshError.timedOut(after: .milliseconds(50))) {
            try await coordinator.recover(fromUnauthorizedAt: 0)
        }
        #expect(clock.now - started >= .milliseconds(50))
        #expect(!line.isHeld)
        #expect(await !coordinator.isRefreshing)
        // A later 401 starts a new refresh; the late return of the first one changes nothing.
        parked.withLock { $0?.resume() }
        #expect(
            TokenRefreshError.timedOut(after: .seconds(1)).localizedDescription
                == "Token refresh did not finish within 1.0 seconds.")
    }
}
