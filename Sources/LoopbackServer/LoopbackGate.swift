import NetKitLock

/// A one-shot signal that test code opens while a streaming producer blocks on it, so a test can
/// hold a response body back at a chosen point and prove what the client saw before it moved on.
///
/// The producer waits with ``LoopbackBodyWriter/wait(for:timeout:)``, which also ends when the
/// client closes the connection or the server stops, or with ``wait(timeout:)`` where only the
/// gate matters. Opening is synchronous and never blocks, so it is safe from async code.
///
/// Built on a pipe that becomes readable for good when opened, so a waiter that arrives late
/// still sees it and the producer can `poll()` the gate together with its socket.
package final class LoopbackGate: Sendable {
    private let pipe: WakePipe
    private let opened = Lock(false)

    /// Creates a closed gate.
    /// - Throws: ``LoopbackServerError/socketFailed(operation:errno:)`` if no pipe can be created.
    package init() throws(LoopbackServerError) {
        pipe = try WakePipe.make()
    }

    deinit {
        // Nobody can be polling the pipe: a waiter holds a reference for as long as it waits.
        pipe.close()
    }

    /// Opens the gate, releasing current and future waiters; opening again does nothing.
    package func open() {
        opened.withLock { opened in
            guard !opened else { return }
            opened = true
            pipe.signal()
        }
    }

    /// Whether ``open()`` has been called.
    package var isOpen: Bool { opened.withLock { $0 } }

    /// Blocks the calling thread until the gate opens (`true`) or `timeout` passes (`false`).
    ///
    /// Meant for producer threads; never call it from async code, which would block a thread of
    /// the cooperative pool.
    package func wait(timeout: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        // Each round sleeps up to a second unless the gate opens; the cap bounds spurious wake-ups.
        for _ in 0..<1_000_000 {
            if isOpen { return true }
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            _ = pipe.wait(milliseconds: min(remaining.pollMilliseconds, 1000))
        }
        return isOpen
    }

    /// The descriptor that becomes readable once the gate is open, for `poll()` next to a socket.
    var readableWhenOpen: Int32 { pipe.readEnd }
}
