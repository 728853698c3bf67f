import Foundation  // FileHandle: not in FoundationEssentials
import NetCore
import NetKitLock

/// A faulty or paced body, produced as its consumer reads it: each piece is read (from memory or the file), waited
/// for and cut as the faults say only when the consumer asks for it, in the consumer's task, so nothing runs once
/// the consumer stops or is cancelled. Empty pieces are not handed over (their pause goes before the next piece).
struct StubBody: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error

    let source: StubBodySource
    /// The pause before each piece of the source (none past the end of the list).
    let delays: [Duration]
    let plan: StubBodyPlan
    let silence: StubSilence
    /// The error the body ends with once every byte has come.
    let bodyError: (any Error)?
    let progress: NetworkProgress?
    /// The length the head declares (else the body's), which progress counts toward.
    let total: Int64

    func makeAsyncIterator() -> Iterator {
        Iterator(body: self)
    }

    /// Reads a ``StubBody``.
    struct Iterator: AsyncIteratorProtocol {
        let body: StubBody
        var cursor = StubBodySource.Cursor()
        /// Bytes read from the source and not yet handed over, from `pendingStart` on.
        var pending = Data()
        var pendingStart = 0
        /// Bytes handed over so far.
        var delivered = 0
        var isFinished = false

        init(body: StubBody) {
            self.body = body
        }

        mutating func next() async throws -> Data? {
            guard !isFinished else { return nil }
            do {
                let piece = try await produce()
                if piece == nil { isFinished = true }
                return piece
            } catch {
                isFinished = true
                body.source.close()
                throw error
            }
        }

        /// The next piece, or `nil` at a clean end.
        private mutating func produce() async throws -> Data? {
            try Task.checkCancellation()
            let plan = body.plan
            // What is due at this point comes first: the stalls, then a close.
            var pause = plan.stall(at: delivered)
            if let close = plan.closeAfter, delivered >= close {
                try await body.silence.wait(pause, "after \(delivered) bytes of the body")
                throw TransportError(
                    .connectionLost,
                    detail:
                        "StubFault.closeMidBody: the stub closed the connection after \(delivered) bytes of the body")
            }
            while pendingStart == pending.count, let run = try body.source.next(&cursor) {
                if let piece = run.piece, piece < body.delays.count { pause += body.delays[piece] }
                pending = run.data
                pendingStart = 0
            }
            guard pendingStart < pending.count else { return try await end(after: pause) }
            var count = pending.count - pendingStart
            if let close = plan.closeAfter { count = Swift.min(count, close - delivered) }
            for stall in plan.stalls where stall.afterBytes > delivered {
                count = Swift.min(count, stall.afterBytes - delivered)
            }
            if let trickle = plan.trickle {
                count = Swift.min(count, trickle.bytes)
                if delivered > 0 { pause += trickle.every }
            }
            try await body.silence.wait(
                pause, delivered == 0 ? "before the body's first byte" : "after \(delivered) bytes of the body")
            let piece: Data
            if pendingStart == 0 && count == pending.count {
                piece = pending
            } else {
                let start = pending.startIndex + pendingStart
                piece = pending.subdata(in: start..<start + count)
            }
            pendingStart += count
            delivered += count
            body.progress?.reportReceived(Int64(delivered), of: body.total)
            return piece
        }

        /// Every byte has come: waits what is due before the end, then ends cleanly or as the faults say.
        private func end(after pause: Duration) async throws -> Data? {
            try await body.silence.wait(pause, "before the end of the body")
            body.source.close()
            if let error = body.bodyError { throw error }
            if body.plan.missingBytes > 0 {
                throw TransportError(
                    .connectionLost,
                    detail: "StubFault.declaredLengthNotReached: the connection closed after \(delivered) of the "
                        + "\(body.total) bytes its Content-Length declared")
            }
            if body.plan.closeAfter != nil {
                throw TransportError(
                    .connectionLost,
                    detail: "StubFault.closeMidBody: the stub closed the connection after the whole body "
                        + "(\(delivered) bytes)")
            }
            return nil
        }
    }
}
