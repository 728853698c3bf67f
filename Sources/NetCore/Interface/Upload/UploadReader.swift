import Foundation  // InputStream: not in FoundationEssentials

/// Pulls the bytes of an ``UploadSource`` in order, into buffers the caller owns.
///
/// Memory stays bounded by the caller's buffer: bytes in memory are copied from where they
/// are, files are read with `pread(2)` straight into the buffer, streams likewise. A file is
/// opened when the reader reaches it and closed at its end, on an error, on ``close()`` and
/// when the reader is dropped, so no path leaves a descriptor open.
///
/// Every read checks the bytes against the declared lengths: a file that shrank, grew,
/// vanished or was replaced, or a stream that ends early or runs long, fails with an
/// ``UploadSourceError`` instead of yielding a body that disagrees with its `Content-Length`.
///
/// Not `Sendable`, on purpose: a reader has one consumer at a time (a transport's upload
/// callback) and its position is plain mutable state. A transport that must read on one
/// thread and cancel on another wraps it in a lock, as NetTransport's stream adapter does.
public final class UploadReader {
    /// What the reader will read, in order.
    enum Step {
        case data(Data)
        case file(UploadFile)
        case stream(InputStream, length: Int64?)
    }

    /// The step being read, with its progress and anything opened for it.
    private enum Cursor {
        case data(Data, position: Int)
        case file(UploadFile, ReadOnlyFile, position: Int64)
        case stream(InputStream, length: Int64?, produced: Int64)
    }

    private var steps: [Step]
    private var nextStep = 0
    private var cursor: Cursor?
    private var isClosed = false
    private var failure: UploadSourceError?

    /// The number of body bytes handed out so far.
    public private(set) var bytesRead: Int64 = 0

    init(steps: [Step]) {
        self.steps = steps
    }

    deinit {
        close()
    }

    /// Copies the next bytes of the body into `buffer` and returns how many; 0 means the
    /// body has ended (or `buffer` is empty).
    ///
    /// Fills as much of `buffer` as the segments allow, crossing from one to the next; a
    /// stream may return fewer bytes than asked. After an error the reader is closed and
    /// every later call throws the same error.
    ///
    /// - Throws: ``UploadSourceError`` when a file or stream breaks its declared length or
    ///   cannot be read, or ``UploadSourceError/readerClosed`` after ``close()``.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(UploadSourceError) -> Int {
        if let failure { throw failure }
        if isClosed { throw .readerClosed }
        var filled = 0
        do {
            while filled < buffer.count {
                let remaining = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
                guard let count = try readFromCurrentStep(into: remaining) else { break }
                filled += count
            }
        } catch {
            failure = error
            releaseEverything()
            throw error
        }
        bytesRead += Int64(filled)
        return filled
    }

    /// Stops reading and closes whatever file or stream is open; later reads throw
    /// ``UploadSourceError/readerClosed``. Idempotent; also done when the reader is dropped.
    ///
    /// Streams the reader took but never reached are closed too: their bytes cannot be
    /// sent by anyone else.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        releaseEverything()
    }

    /// Whether a file or stream is open right now (for tests of descriptor hygiene).
    var hasOpenResource: Bool {
        switch cursor {
        case .file, .stream: true
        case .data, nil: false
        }
    }

    // MARK: Steps

    /// Reads from the current step, opening the next one when needed.
    /// Returns `nil` at the end of the body, otherwise the byte count (possibly 0 when a
    /// step just ended and the next should be tried).
    private func readFromCurrentStep(into buffer: UnsafeMutableRawBufferPointer) throws(UploadSourceError) -> Int? {
        if cursor == nil {
            guard nextStep < steps.count else { return nil }
            cursor = try open(steps[nextStep])
            // Forget the step: a reader never goes back, and the data or stream is released sooner.
            steps[nextStep] = .data(Data())
            nextStep += 1
        }
        guard let current = cursor else { return nil }
        switch current {
        case let .data(data, position):
            let count = min(buffer.count, data.count - position)
            if count > 0 {
                data.withUnsafeBytes { bytes in
                    buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)]))
                }
            }
            cursor = position + count < data.count ? .data(data, position: position + count) : nil
            return count
        case let .file(file, handle, position):
            let want = Int(min(Int64(buffer.count), file.length - position))
            var count = 0
            if want > 0 {
                count = try handle.read(
                    into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<want]),
                    at: file.offset + position
                )
                if count == 0 {
                    // Ended before the declared range: the file was truncated while being read.
                    let actual = (try? handle.status().size) ?? file.offset + position
                    throw .fileSizeChanged(file.url, expected: file.fileSize, actual: actual)
                }
            }
            if position + Int64(count) < file.length {
                cursor = .file(file, handle, position: position + Int64(count))
            } else {
                // A final fstat catches a file that grew (or was truncated and refilled)
                // while it was read; then the descriptor is closed at once.
                let size = try handle.status().size
                guard size == file.fileSize else {
                    throw .fileSizeChanged(file.url, expected: file.fileSize, actual: size)
                }
                handle.close()
                cursor = nil
            }
            return count
        case let .stream(stream, length, produced):
            let count = try read(stream, length: length, produced: produced, into: buffer)
            if let count {
                cursor = .stream(stream, length: length, produced: produced + Int64(count))
                return count
            }
            stream.close()
            cursor = nil
            return 0
        }
    }

    private func open(_ step: Step) throws(UploadSourceError) -> Cursor {
        switch step {
        case let .data(data):
            return .data(data, position: 0)
        case let .file(file):
            let handle = try ReadOnlyFile(opening: file.url)
            let status = try handle.status()
            guard status.isRegularFile else { throw .notARegularFile(file.url) }
            guard status.size == file.fileSize else {
                throw .fileSizeChanged(file.url, expected: file.fileSize, actual: status.size)
            }
            return .file(file, handle, position: 0)
        case let .stream(stream, length):
            stream.open()
            if stream.streamStatus == .error {
                let reason = stream.streamError.map { "\($0)" }
                stream.close()
                throw .streamFailed(description: reason)
            }
            return .stream(stream, length: length, produced: 0)
        }
    }

    /// Reads from a stream, enforcing its declared length. Returns `nil` at its end.
    private func read(
        _ stream: InputStream,
        length: Int64?,
        produced: Int64,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(UploadSourceError) -> Int? {
        var want = buffer.count
        if let length {
            let left = length - produced
            if left == 0 {
                // Declared end: the stream must be at its end too, or it would be cut short silently.
                var extra: UInt8 = 0
                let count = stream.read(&extra, maxLength: 1)
                if count > 0 { throw .streamLengthMismatch(expected: length, actual: length + 1) }
                if count < 0 { throw .streamFailed(description: stream.streamError.map { "\($0)" }) }
                return nil
            }
            want = Int(min(Int64(want), left))
        }
        guard want > 0, let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        let count = stream.read(base, maxLength: want)
        if count < 0 { throw .streamFailed(description: stream.streamError.map { "\($0)" }) }
        if count == 0 {
            if let length { throw .streamLengthMismatch(expected: length, actual: produced) }
            return nil
        }
        return count
    }

    /// Closes the open file or stream and every stream not reached yet.
    private func releaseEverything() {
        switch cursor {
        case let .file(_, handle, _)?:
            handle.close()
        case let .stream(stream, _, _)?:
            stream.close()
        case .data?, nil:
            break
        }
        cursor = nil
        for index in nextStep..<steps.count {
            if case let .stream(stream, _) = steps[index] { stream.close() }
        }
        steps.removeAll()
        nextStep = 0
    }
}
