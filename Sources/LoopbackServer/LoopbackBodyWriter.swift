import Foundation
import NetKitLock

/// What a streamed response's producer writes its body through, on the connection's own thread.
///
/// Every write goes to the socket before it returns (with `TCP_NODELAY`, so it leaves at once):
/// a client sees the body arrive piece by piece, while the producer is still running. When the
/// producer returns, the body is ended as if ``end()`` had been called.
///
/// The writer belongs to one response: once its producer has returned, every call fails.
package final class LoopbackBodyWriter: Sendable {
    /// How the body's end is marked on the wire.
    enum Wire: Equatable {
        case chunked
        case contentLength(Int)
        /// HTTP/1.0 and a chunked framing: raw bytes, ended by closing the connection.
        case untilClose
    }

    private enum Phase: Equatable {
        /// Accepting writes.
        case open
        /// The body ended as its framing requires.
        case ended
        /// The body was cut short on purpose (``abort()``, a wrong length, a write past the length).
        case dropped
        /// A send failed: the client went away or the server is stopping.
        case broken
        /// The producer returned; nothing may be written any more.
        case retired
    }

    private struct State {
        var phase = Phase.open
        var bytesWritten = 0
        var bodyComplete = false
        var clientClosed = false
        var intentionallyDropped = false
        /// Body bytes the client's TCP had acknowledged when a send found it gone (see ``bytesDelivered``).
        var deliveredWhenBroken: Int?
    }

    private let socket: Socket
    private let wake: WakePipe
    private let wire: Wire
    private let state = Lock(State())
    /// The connection's TCP counts as the body starts: bytes acknowledged so far and bytes not yet acknowledged
    /// (the head's, or an earlier response's), which the peer acknowledges before any of the body's.
    private let transmissionAtStart: (acknowledged: UInt64, unacknowledged: Int)?

    init(socket: Socket, wake: WakePipe, wire: Wire) {
        self.socket = socket
        self.wake = wake
        self.wire = wire
        transmissionAtStart = socket.transmission()
    }

    // MARK: - Writing

    /// Sends `bytes` (a `Data`, a `[UInt8]`, a raw buffer…) as the next piece of the body.
    ///
    /// - Returns: `false` if nothing more can be written: the client has gone away (noticed once
    ///   the kernel reports it, which may be one write after the close), the server is stopping,
    ///   the body was ended or aborted, or this write would pass a declared `Content-Length`
    ///   (then nothing of it is sent and the connection is dropped).
    @discardableResult
    package func write(_ bytes: some ContiguousBytes) -> Bool {
        bytes.withUnsafeBytes { send($0) }
    }

    /// Sends `text` encoded as UTF-8; the result is as for the bytes variant.
    @discardableResult
    package func write(_ text: String) -> Bool {
        write(Data(text.utf8))
    }

    /// Sends `bytes` `count` times, each time as a chunk of its own with chunked framing, packed into writes of about
    /// 64 KiB: a flood of tiny chunks as fast as the socket takes it (a write per chunk would make the server, not
    /// the client, what sets its pace).
    /// - Returns: as for `write(_:)`; after `false` the body ends after a whole number of chunks.
    @discardableResult
    package func write(_ bytes: [UInt8], times count: Int) -> Bool {
        guard !bytes.isEmpty, count > 0 else { return true }
        let piece = wire == .chunked ? Array("\(String(bytes.count, radix: 16))\r\n".utf8) + bytes + [13, 10] : bytes
        let perWrite = max(1, (64 << 10) / piece.count)
        var batch: [UInt8] = []
        batch.reserveCapacity(perWrite * piece.count)
        var remaining = count
        // Each round sends at least one piece or returns.
        while remaining > 0 {
            let pieces = min(perWrite, remaining)
            batch.removeAll(keepingCapacity: true)
            for _ in 0..<pieces { batch += piece }
            guard batch.withUnsafeBytes({ send($0, framed: false, payload: pieces * bytes.count) }) else {
                return false
            }
            remaining -= pieces
        }
        return true
    }

    /// Sends the next `byteCount` bytes of ``LoopbackBodyPattern``, continuing from the body's
    /// current length, straight from one shared buffer: a body of any size costs no memory.
    ///
    /// The case of ``writePattern(from:byteCount:)`` whose offset is the body's length so far (`0` for a fresh body),
    /// so pieces written one after another continue the pattern.
    /// With chunked framing it goes out in chunks of about 250 KiB.
    /// - Returns: as for `write(_:)`; after `false` the body ends where the failing piece began.
    @discardableResult
    package func writePattern(byteCount: Int) -> Bool {
        writePattern(from: bytesWritten, byteCount: byteCount)
    }

    /// Sends the ``LoopbackBodyPattern`` bytes of body offsets `offset..<offset + byteCount`, straight from one
    /// shared buffer: a slice of a body of any size (a range request's answer) costs no memory.
    ///
    /// The offset is the pattern's, not this response's: a 206 for `bytes=100-` writes from 100 as its first byte.
    /// A negative `offset` counts as 0. With chunked framing it goes out in chunks of about 250 KiB.
    /// - Returns: as for `write(_:)`; after `false` the body ends where the failing piece began.
    @discardableResult
    package func writePattern(from offset: Int, byteCount: Int) -> Bool {
        var remaining = max(byteCount, 0)
        var position = max(offset, 0)
        let block = LoopbackBodyPattern.block
        return block.withUnsafeBytes { block in
            // Each round sends a non-empty piece or returns, so rounds ≤ byteCount / pieceSize + 1.
            while remaining > 0 {
                let phase = position % LoopbackBodyPattern.period
                let size = min(remaining, LoopbackBodyPattern.pieceSize)
                guard send(UnsafeRawBufferPointer(rebasing: block[phase..<(phase + size)])) else { return false }
                remaining -= size
                position += size
            }
            return true
        }
    }

    /// Ends the body cleanly: sends the zero chunk (chunked), or checks that exactly the declared
    /// `Content-Length` was written. Later writes fail. Calling it again changes nothing.
    ///
    /// - Returns: whether the client was given a complete body. A short `Content-Length` body is
    ///   dropped instead (the client sees it truncated) and yields `false`.
    @discardableResult
    package func end() -> Bool {
        state.withLock { state in
            guard state.phase == .open else { return state.bodyComplete }
            // A body the client left, or the server is abandoning, must not look complete.
            guard !state.clientClosed && !wake.isSignalled else {
                markBroken(&state)
                return false
            }
            switch wire {
            case .chunked:
                let terminator: StaticString = "0\r\n\r\n"
                let sent = socket.sendAll([
                    UnsafeRawBufferPointer(
                        start: terminator.utf8Start, count: terminator.utf8CodeUnitCount
                    )
                ])
                guard sent else {
                    markBroken(&state)
                    return false
                }
            case let .contentLength(length):
                guard state.bytesWritten == length else {
                    drop(&state)
                    return false
                }
            case .untilClose:
                break
            }
            state.phase = .ended
            state.bodyComplete = true
            return true
        }
    }

    /// Drops the connection mid-body: no zero chunk, no more bytes of a `Content-Length` body.
    ///
    /// The client sees the body end early (EOF right away; the server closes once the producer returns).
    /// Does nothing once the body has ended.
    package func abort() {
        state.withLock { state in
            guard state.phase == .open else { return }
            drop(&state)
        }
    }

    // MARK: - Waiting

    /// Blocks until `gate` opens (`true`), or `false` when `timeout` passes, the client closes the
    /// connection (see ``clientHasClosed``) or the server stops.
    ///
    /// A client close noticed here counts as an aborted response if the body is unfinished.
    package func wait(for gate: LoopbackGate, timeout: Duration = .seconds(10)) -> Bool {
        if gate.isOpen { return true }
        switch socket.pause(for: timeout, wake: wake, signal: gate.readableWhenOpen) {
        case .signalled:
            return true
        case .peerClosed:
            state.withLock { $0.clientClosed = true }
            return false
        case .woken, .elapsed:
            return false
        }
    }

    /// Blocks until the client closes (or resets) the connection (`true`), or `false` when
    /// `timeout` passes or the server stops.
    ///
    /// Lets a producer hold a body open until a client gives up, so a test can observe the close;
    /// a close while the body is unfinished counts in ``LoopbackServer/clientAbortedResponses``.
    /// Bytes the client sends meanwhile (a pipelined request) are left unread, after which only a
    /// reset or full hang-up is noticed.
    package func waitForClientClose(timeout: Duration = .seconds(10)) -> Bool {
        switch socket.pause(for: timeout, wake: wake) {
        case .peerClosed:
            state.withLock { $0.clientClosed = true }
            return true
        case .woken, .elapsed, .signalled:
            return false
        }
    }

    // MARK: - Observing

    /// Body bytes handed to the socket so far (framing such as chunk-size lines not counted).
    package var bytesWritten: Int { state.withLock { $0.bytesWritten } }

    /// Body bytes that reached the client's machine: ``bytesWritten``, less what the kernel still held when a send
    /// found the client gone (what its TCP never acknowledged, discarded by the client's reset).
    ///
    /// Equal to ``bytesWritten`` whenever the body ended, was cut by the server (what the kernel holds still goes out
    /// before the close) or the kernel does not say (only Linux does). With chunked framing the chunk lines count.
    package var bytesDelivered: Int { state.withLock { $0.deliveredWhenBroken ?? $0.bytesWritten } }

    /// Whether the server has seen that the client went away: a write failed (while the server
    /// was not stopping) or a wait saw the connection close.
    package var clientHasClosed: Bool { state.withLock { $0.clientClosed } }

    // MARK: - Connection side

    /// Called once the producer has returned: ends the body if the producer did not, retires the
    /// writer, and says what the connection must do next.
    func conclude(closing: Bool) -> ResponseWriter.Outcome {
        _ = end()
        return state.withLock { state -> ResponseWriter.Outcome in
            state.phase = .retired
            if state.clientClosed && !state.bodyComplete { return .clientAborted }
            if !state.bodyComplete && !state.intentionallyDropped { return .stopped }
            if !state.bodyComplete || wire == .untilClose || state.clientClosed || closing { return .close }
            return .keepOpen
        }
    }

    // MARK: - Private

    /// Sends `bytes` as the next piece of body, framed as a chunk with chunked framing unless `framed` is false (they
    /// are framed already: `payload` body bytes in them).
    private func send(_ bytes: UnsafeRawBufferPointer, framed: Bool = true, payload: Int? = nil) -> Bool {
        state.withLock { state in
            guard state.phase == .open && !state.clientClosed else { return false }
            guard !bytes.isEmpty else { return true }
            let payload = payload ?? bytes.count
            if case let .contentLength(length) = wire, state.bytesWritten + payload > length {
                drop(&state)
                return false
            }
            let sent: Bool
            if wire == .chunked && framed {
                let sizeLine = Array("\(String(bytes.count, radix: 16))\r\n".utf8)
                let crlf: StaticString = "\r\n"
                sent = sizeLine.withUnsafeBytes { sizeLine in
                    socket.sendAll([sizeLine, bytes, UnsafeRawBufferPointer(start: crlf.utf8Start, count: 2)])
                }
            } else {
                sent = socket.sendAll([bytes])
            }
            guard sent else {
                markBroken(&state)
                return false
            }
            state.bytesWritten += payload
            return true
        }
    }

    /// A failed send means the peer went away, unless `stop()` shut the socket down.
    private func markBroken(_ state: inout State) {
        state.phase = .broken
        if !wake.isSignalled { state.clientClosed = true }
        if let start = transmissionAtStart, let now = socket.transmission() {
            let acknowledged = Int(clamping: now.acknowledged &- start.acknowledged) - start.unacknowledged
            state.deliveredWhenBroken = min(max(acknowledged, 0), state.bytesWritten)
        }
    }

    /// Cuts the body short: the client gets EOF now, so it sees the truncation while the producer may still run.
    private func drop(_ state: inout State) {
        state.phase = .dropped
        state.intentionallyDropped = true
        socket.shutdownWrite()
    }
}
