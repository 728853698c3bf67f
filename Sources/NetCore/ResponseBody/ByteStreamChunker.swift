#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetKitLock

/// Turns a stream of single bytes (EKNetwork's `AsyncThrowingStream<UInt8, Error>`, as users' mocks
/// produce them) into `Data` chunks, so that the chunk-based views run over it unchanged.
///
/// A producer task, started by the first read, drains the byte stream into a buffer; each read takes
/// everything buffered at once. A reader that waits gets the next byte as soon as it arrives (nothing is held
/// back for batching), and a reader that falls behind gets it all in one chunk. The buffer holds at most
/// `highWaterMark` bytes (64 KiB); then the producer waits for the reader (backpressure). The per-byte cost of the
/// source stream itself remains: this only spares the layers above it.
///
/// The reader's cancellation cancels the producer, which cancels the byte stream; so does dropping the
/// chunker unread.
package final class ByteStreamChunker: Sendable {
    /// The most bytes buffered for the reader before the producer waits, unless told otherwise.
    package static let defaultHighWaterMark = 64 * 1024

    private let channel: Channel
    private let source: AsyncThrowingStream<UInt8, any Error>

    /// Chunks `source`, buffering at most `highWaterMark` bytes for the reader.
    package init(
        _ source: AsyncThrowingStream<UInt8, any Error>, highWaterMark: Int = ByteStreamChunker.defaultHighWaterMark
    ) {
        precondition(highWaterMark > 0, "highWaterMark must be positive")
        self.source = source
        self.channel = Channel(highWaterMark: highWaterMark)
    }

    deinit {
        channel.cancel()
    }

    /// The bytes that arrived since the last read (at least one), or `nil` at the end of the stream.
    package func next() async throws -> Data? {
        if channel.claimStart() {
            let channel = self.channel
            let source = self.source
            channel.attach(Task { await channel.produce(from: source) })
        }
        return try await channel.take()
    }

    /// The state shared by the reader and the producer task (which must not keep the chunker alive).
    final class Channel: Sendable {
        private struct State {
            var buffer: [UInt8] = []
            var reader: CheckedContinuation<Data?, any Error>?
            var producer: CheckedContinuation<Void, Never>?
            /// How the byte stream ended, once it has; `nil` after the end was reported.
            var end: Result<Void, any Error>?
            var reportedEnd = false
            var started = false
            var cancelled = false
            var task: Task<Void, Never>?
        }

        private let state = Lock(State())
        private let highWaterMark: Int

        init(highWaterMark: Int) {
            self.highWaterMark = highWaterMark
        }

        /// True for the first caller only: it starts the producer.
        func claimStart() -> Bool {
            state.withLock { state in
                defer { state.started = true }
                return !state.started
            }
        }

        func attach(_ task: Task<Void, Never>) {
            let cancelled = state.withLock { state in
                state.task = task
                return state.cancelled
            }
            if cancelled { task.cancel() }
        }

        /// Stops the producer and wakes whoever waits: a waiting reader gets `CancellationError`.
        func cancel() {
            let (task, reader, producer) = state.withLock { state in
                state.cancelled = true
                defer {
                    state.reader = nil
                    state.producer = nil
                }
                return (state.task, state.reader, state.producer)
            }
            task?.cancel()
            reader?.resume(throwing: CancellationError())
            producer?.resume()
        }

        func produce(from source: AsyncThrowingStream<UInt8, any Error>) async {
            do {
                for try await byte in source {
                    guard await deliver(byte) else { return }
                }
                end(.success(()))
            } catch {
                end(.failure(error))
            }
        }

        private enum Delivery {
            case handed(CheckedContinuation<Data?, any Error>)
            case buffered
            case full
            case stop
        }

        /// Hands `byte` to a waiting reader or buffers it; false once the producer should stop.
        private func deliver(_ byte: UInt8) async -> Bool {
            let delivery = state.withLock { state -> Delivery in
                if state.cancelled { return .stop }
                if let reader = state.reader {
                    state.reader = nil
                    return .handed(reader)
                }
                state.buffer.append(byte)
                return state.buffer.count >= highWaterMark ? .full : .buffered
            }
            switch delivery {
            case .handed(let reader):
                reader.resume(returning: Data([byte]))
                return true
            case .buffered:
                return true
            case .stop:
                return false
            case .full:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (producer: CheckedContinuation<Void, Never>) in
                        let resumeNow = state.withLock { state in
                            guard !state.cancelled, state.buffer.count >= highWaterMark else { return true }
                            state.producer = producer
                            return false
                        }
                        if resumeNow { producer.resume() }
                    }
                } onCancel: {
                    cancel()
                }
                return state.withLock { !$0.cancelled }
            }
        }

        private func end(_ result: Result<Void, any Error>) {
            let reader = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
                guard !state.cancelled else { return nil }
                state.end = result
                defer { state.reader = nil }
                return state.reader
            }
            guard let reader else { return }
            finish(reader, with: result)
        }

        private enum Take {
            case chunk(Data, wakingProducer: CheckedContinuation<Void, Never>?)
            case end(Result<Void, any Error>)
            case finished
            case cancelled
            case wait
        }

        func take() async throws -> Data? {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (reader: CheckedContinuation<Data?, any Error>) in
                    let take = state.withLock { state -> Take in
                        if !state.buffer.isEmpty {
                            let chunk = Data(state.buffer)
                            state.buffer.removeAll(keepingCapacity: true)
                            defer { state.producer = nil }
                            return .chunk(chunk, wakingProducer: state.producer)
                        }
                        if state.cancelled { return .cancelled }
                        if state.reportedEnd { return .finished }
                        if let end = state.end {
                            state.reportedEnd = true
                            return .end(end)
                        }
                        state.reader = reader
                        return .wait
                    }
                    switch take {
                    case .chunk(let chunk, let producer):
                        reader.resume(returning: chunk)
                        producer?.resume()
                    case .end(let result):
                        finish(reader, with: result)
                    case .finished:
                        reader.resume(returning: nil)
                    case .cancelled:
                        reader.resume(throwing: CancellationError())
                    case .wait:
                        break
                    }
                }
            } onCancel: {
                cancel()
            }
        }

        private func finish(_ reader: CheckedContinuation<Data?, any Error>, with result: Result<Void, any Error>) {
            state.withLock { $0.reportedEnd = true }
            switch result {
            case .success: reader.resume(returning: nil)
            case .failure(let error): reader.resume(throwing: error)
            }
        }
    }
}
