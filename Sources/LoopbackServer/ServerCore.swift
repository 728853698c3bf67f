import Foundation
import NetKitLock

/// Everything the server's threads share.
///
/// Threads retain this object, never the ``LoopbackServer`` itself, so that releasing the last
/// reference to the server runs its `deinit`, which stops everything.
final class ServerCore: Sendable {
    let wake: WakePipe
    let port: Int
    let limits: LoopbackLimits
    let bodyMode: LoopbackRequestBodyMode
    let handler: @Sendable (LoopbackRequest) -> LoopbackResponse
    private let listener: Socket
    /// Lets `stop()` join every thread; entered under the state lock whenever a thread is counted.
    private let threadsDone = DispatchGroup()
    private let state = Lock(State())

    private struct State {
        var stopped = false
        /// Whether the wake pipe has been closed (only once no thread can poll it any more).
        var wakeClosed = false
        /// The first `limits.maxRecordedRequests` requests.
        var requests: [LoopbackRequest] = []
        var counts: [LoopbackCounter: Int] = [:]
        var peakReceiveBuffer = 0
        /// Connections whose descriptors are still open; `stop()` shuts these down to unblock their threads.
        var openConnections: Set<Socket> = []
        /// Threads counted from the moment they are decided on, so none can be missed by `stop()`.
        var liveThreads = 0
        /// Identities of running server threads, so `stop()` called from a handler does not join itself.
        var serverThreads: Set<ObjectIdentifier> = []
        var waiters: [Int: Waiter] = [:]
        var lastWaiterID = 0
        /// Gates that open once their counter reaches their target (see ``ServerCore/gate(opening:atLeast:)``).
        var counterGates: [(counter: LoopbackCounter, target: Int, gate: LoopbackGate)] = []

        func value(of counter: LoopbackCounter) -> Int {
            counts[counter, default: 0]
        }
    }

    private struct Waiter {
        let counter: LoopbackCounter
        let target: Int
        var continuation: CheckedContinuation<Void, any Error>?
        /// Set when the waiter fails before its continuation exists.
        var failure: Failure?
    }

    private enum Failure: Sendable {
        case timedOut
        case cancelled
        case stopped
    }

    init(
        limits: LoopbackLimits,
        bodyMode: LoopbackRequestBodyMode,
        handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse
    ) throws(LoopbackServerError) {
        let wake = try WakePipe.make()
        do {
            (listener, port) = try Socket.listenOnLoopback()
        } catch {
            wake.close()
            throw error
        }
        self.wake = wake
        self.limits = limits
        self.bodyMode = bodyMode
        self.handler = handler
    }

    /// Starts the accept thread; separate from `init` because the thread captures `self`.
    func start() {
        state.withLock { state in
            state.liveThreads += 1
            threadsDone.enter()
        }
        spawn(name: "LoopbackServer :\(port) accept") { [self] in acceptLoop() }
    }

    // MARK: - Counters

    var requests: [LoopbackRequest] { state.withLock { $0.requests } }

    func value(of counter: LoopbackCounter) -> Int { state.withLock { $0.value(of: counter) } }

    var peakReceiveBuffer: Int { state.withLock { $0.peakReceiveBuffer } }

    /// Counts `request`, keeps it if there is room, and notes how full its connection's buffer has been.
    func record(_ request: LoopbackRequest, peakReceiveBuffer: Int) {
        resume(
            state.withLock { state in
                if state.requests.count < limits.maxRecordedRequests { state.requests.append(request) }
                state.counts[.requests, default: 0] += 1
                state.peakReceiveBuffer = max(state.peakReceiveBuffer, peakReceiveBuffer)
                return Self.satisfiedWaiters(&state)
            })
    }

    /// Notes a connection's receive-buffer high-water mark (also for requests that were never completed).
    func notePeakReceiveBuffer(_ bytes: Int) {
        state.withLock { $0.peakReceiveBuffer = max($0.peakReceiveBuffer, bytes) }
    }

    func increment(_ counter: LoopbackCounter) {
        add(1, to: counter)
    }

    /// Adds `amount` to `counter`, then resumes the waiters and opens the gates it satisfies.
    func add(_ amount: Int, to counter: LoopbackCounter) {
        let (continuations, gates) = state.withLock { state in
            state.counts[counter, default: 0] += amount
            return (Self.satisfiedWaiters(&state), Self.satisfiedGates(&state))
        }
        resume(continuations)
        for gate in gates { gate.open() }
    }

    /// A gate that opens once `counter` reaches `target` (at once if it has): a producer thread blocks on it,
    /// which an async waiter could not do without a thread of the cooperative pool.
    func gate(opening counter: LoopbackCounter, atLeast target: Int) throws(LoopbackServerError) -> LoopbackGate {
        let gate = try LoopbackGate()
        let reached = state.withLock { state in
            if state.value(of: counter) >= target { return true }
            state.counterGates.append((counter, target, gate))
            return false
        }
        if reached { gate.open() }
        return gate
    }

    private static func satisfiedGates(_ state: inout State) -> [LoopbackGate] {
        guard !state.counterGates.isEmpty else { return [] }
        var ready: [LoopbackGate] = []
        let counts = state.counts
        state.counterGates.removeAll { entry in
            guard counts[entry.counter, default: 0] >= entry.target else { return false }
            ready.append(entry.gate)
            return true
        }
        return ready
    }

    // MARK: - Waiting

    /// Suspends until `counter` reaches `target`; resumed by whichever thread moves the counter, never by polling.
    func wait(for counter: LoopbackCounter, atLeast target: Int, timeout: Duration) async throws {
        let id = state.withLock { state in
            state.lastWaiterID += 1
            state.waiters[state.lastWaiterID] = Waiter(counter: counter, target: target)
            return state.lastWaiterID
        }
        // The timer only turns an overdue wait into an error; the success path never waits on it.
        let timer = Task { [self] in
            do { try await Task.sleep(for: timeout) } catch { return }
            fail(waiter: id, .timedOut)
        }
        defer { timer.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // The waiter may already be satisfied or failed (timer, cancellation, stop) before it parks.
                let verdict: Result<Void, any Error>? = state.withLock { state in
                    guard var waiter = state.waiters[id] else { return .success(()) }
                    if state.value(of: counter) >= target {
                        state.waiters[id] = nil
                        return .success(())
                    }
                    if let failure = waiter.failure ?? (state.stopped ? .stopped : nil) {
                        state.waiters[id] = nil
                        return .failure(Self.error(for: failure, waiter: waiter, state: state))
                    }
                    waiter.continuation = continuation
                    state.waiters[id] = waiter
                    return nil
                }
                if let verdict { continuation.resume(with: verdict) }
            }
        } onCancel: {
            fail(waiter: id, .cancelled)
        }
    }

    /// Fails a parked waiter now, or marks a not-yet-parked one so it fails as soon as it parks.
    private func fail(waiter id: Int, _ failure: Failure) {
        let resumption: (CheckedContinuation<Void, any Error>, any Error)? = state.withLock { state in
            guard var waiter = state.waiters[id] else { return nil }
            guard let continuation = waiter.continuation else {
                waiter.failure = waiter.failure ?? failure
                state.waiters[id] = waiter
                return nil
            }
            state.waiters[id] = nil
            return (continuation, Self.error(for: failure, waiter: waiter, state: state))
        }
        if let (continuation, error) = resumption { continuation.resume(throwing: error) }
    }

    private static func error(for failure: Failure, waiter: Waiter, state: State) -> any Error {
        switch failure {
        case .cancelled:
            return CancellationError()
        case .stopped:
            return LoopbackServerError.stopped
        case .timedOut:
            return LoopbackServerError.timedOut(
                counter: waiter.counter.rawValue,
                expected: waiter.target,
                reached: state.value(of: waiter.counter)
            )
        }
    }

    private static func satisfiedWaiters(_ state: inout State) -> [CheckedContinuation<Void, any Error>] {
        var ready: [CheckedContinuation<Void, any Error>] = []
        for (id, waiter) in state.waiters {
            guard let continuation = waiter.continuation, state.value(of: waiter.counter) >= waiter.target else {
                continue
            }
            state.waiters[id] = nil
            ready.append(continuation)
        }
        return ready
    }

    /// Resumes outside the lock, so resumed code can never contend with the thread that resumed it.
    private func resume(_ continuations: [CheckedContinuation<Void, any Error>]) {
        for continuation in continuations { continuation.resume() }
    }

    // MARK: - Threads

    /// Runs `body` on a new thread; the caller has already counted it in `liveThreads` and entered `threadsDone`.
    private func spawn(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            let identity = ObjectIdentifier(Thread.current)
            state.withLock { _ = $0.serverThreads.insert(identity) }
            body()
            state.withLock { state in
                state.serverThreads.remove(identity)
                state.liveThreads -= 1
                closeWakeIfIdle(&state)
            }
            threadsDone.leave()
        }
        thread.name = name
        thread.start()
    }

    /// Accepts connections until `stop()`; each gets its own thread.
    private func acceptLoop() {
        defer { listener.close() }
        // Ends when the wake pipe is signalled; every other round accepts (or fails to accept) one connection.
        while true {
            switch listener.waitReadable(wake: wake, timeoutMilliseconds: -1) {
            case .woken, .failed:
                return
            case .timedOut:
                continue
            case .readable:
                break
            }
            guard let socket = listener.accept() else {
                // Out of descriptors, say: back off briefly instead of spinning on a readable listener.
                if wake.wait(milliseconds: 50) { return }
                continue
            }
            // Small writes (100 Continue, then the response) must not wait for delayed ACKs.
            socket.setNoDelay()
            let number: Int? = state.withLock { state in
                guard !state.stopped else { return nil }
                state.counts[.acceptedConnections, default: 0] += 1
                state.openConnections.insert(socket)
                state.liveThreads += 1
                threadsDone.enter()
                return state.counts[.acceptedConnections]
            }
            guard let number else {
                socket.close()
                return
            }
            resume(state.withLock { Self.satisfiedWaiters(&$0) })
            spawn(name: "LoopbackServer :\(port) #\(number)") { [self] in
                LoopbackConnection(core: self, socket: socket, number: number).run()
                connectionEnded(socket)
            }
        }
    }

    private func connectionEnded(_ socket: Socket) {
        resume(
            state.withLock { state in
                // Closed under the lock so `stop()` can never shut down a descriptor number that was reused.
                state.openConnections.remove(socket)
                socket.close()
                state.counts[.closedConnections, default: 0] += 1
                return Self.satisfiedWaiters(&state)
            })
    }

    /// Closes the wake pipe once stopped and no thread can poll it any more.
    private func closeWakeIfIdle(_ state: inout State) {
        guard state.stopped, state.liveThreads == 0, !state.wakeClosed else { return }
        state.wakeClosed = true
        wake.close()
    }

    // MARK: - Stopping

    /// Wakes every thread, fails pending waits, and joins the threads (unless called from one of them).
    func stop() {
        let identity = ObjectIdentifier(Thread.current)
        let (failed, calledFromServerThread) = state.withLock { state in
            let calledFromServerThread = state.serverThreads.contains(identity)
            guard !state.stopped else { return ([CheckedContinuation<Void, any Error>](), calledFromServerThread) }
            state.stopped = true
            // Signalled under the lock so the last exiting thread cannot close the pipe first.
            wake.signal()
            // Unblocks threads stuck in send() to a client that stopped reading.
            for socket in state.openConnections { socket.shutdownBoth() }
            var failed: [CheckedContinuation<Void, any Error>] = []
            for (id, waiter) in state.waiters {
                if let continuation = waiter.continuation {
                    state.waiters[id] = nil
                    failed.append(continuation)
                } else {
                    state.waiters[id]?.failure = .stopped
                }
            }
            closeWakeIfIdle(&state)
            return (failed, calledFromServerThread)
        }
        for continuation in failed { continuation.resume(throwing: LoopbackServerError.stopped) }
        // A handler that stops its own server cannot wait for its own thread; the others still end promptly.
        if !calledFromServerThread { threadsDone.wait() }
    }
}
