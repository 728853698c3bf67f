#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lines from a pipe, each read within a time bound.
struct LineReader {
    let descriptor: Int32
    private var buffer: [UInt8] = []
    private var ended = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next line, or `nil` at the end of the output.
    /// - Throws: when no line comes within `timeout`.
    mutating func next(timeout: Duration) throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                defer { buffer.removeSubrange(...newline) }
                return String(decoding: buffer[..<newline], as: UTF8.self)
            }
            if ended { return nil }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw Timeout() }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(left.components.seconds * 1000 + 1, 60_000))
            guard poll(&poller, 1, milliseconds) >= 0 || errno == EINTR else { throw Timeout() }
            guard poller.revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &chunk, chunk.count)
            if count <= 0 { ended = true } else { buffer += chunk[..<count] }
        }
    }

    struct Timeout: Error, CustomStringConvertible {
        var description: String { "the writer printed nothing for a minute" }
    }
}
