import Foundation  // InputStream: not in FoundationEssentials
import LoopbackServer
import NetCore
import NetKitLock

extension TransportConformance {
    /// A streamed response body reaches the caller while it is still arriving, never gathered into memory first:
    /// the server sends the head and the first part of the body, then holds the rest until the caller has the head
    /// and those first bytes (it opens the server's gate then), for half the check's time limit at most. A transport
    /// that gathers the body before handing over its head, or before handing over its first bytes, keeps the
    /// server waiting until it gives up, and fails with a message that says so.
    static let responseBodyNotGathered = TransportConformanceCheck("a response body handed over while it arrives") {
        context in
        let first = Data(repeating: UInt8(ascii: "a"), count: 4096)
        let gate = try LoopbackGate()
        let released = Lock<Bool?>(nil)
        let server = try context.server { _ in
            .streamed(headers: [(name: "Content-Type", value: "application/octet-stream")]) { writer in
                writer.write(first)
                let opened = writer.wait(for: gate, timeout: context.options.timeLimit / 2)
                released.withLock { $0 = opened }
                writer.write("rest")
            }
        }
        defer { server.stop() }
        let response = try await context.send(try context.request(server.baseURL))
        try context.expect(
            released.withLock { $0 } == nil,
            "the transport gathered the response body before handing over its head: a streamed body must reach the caller while it is still arriving (the server held the rest of the body until the caller had the head and the first \(first.count) bytes, and gave up waiting)"
        )
        var iterator = response.body.makeAsyncIterator()
        var received = Data()
        do {
            // Each round takes a chunk or ends the loop at the body's end.
            while received.count < first.count, let chunk = try await iterator.next() { received += chunk }
        } catch {
            throw context.failure("reading the first bytes of the body failed: \(String(reflecting: error))")
        }
        try context.expect(
            released.withLock { $0 } == nil,
            "the transport gathered the response body before handing over its first bytes: a streamed body must reach the caller while it is still arriving (the server held the rest of the body until the caller had the first \(first.count) bytes, and gave up waiting)"
        )
        gate.open()
        do {
            // Each round takes a chunk or ends the loop at the body's end.
            while let chunk = try await iterator.next() { received += chunk }
        } catch {
            throw context.failure("reading the rest of the body failed: \(String(reflecting: error))")
        }
        try context.expect(
            released.withLock { $0 } == true,
            "the server gave up waiting for the caller to have the first bytes before the caller had them")
        try context.expect(
            received == first + Data("rest".utf8),
            "the body was \(received.count) bytes, expected \(first.count + 4): the first part and \"rest\"")
    }

    /// A streamed request body goes out while it is still being produced, never gathered into memory first: the
    /// body is a stream of unknown length that produces its first part (1 MiB), then holds the rest until the server
    /// has received half of that part (a gate the server opens when it has counted those bytes), for half the
    /// check's time limit at most. A transport may hold a bounded buffer (libcurl fills its 64 KiB send buffer
    /// before it sends); one that reads the whole stream before sending any of it never lets the server count
    /// them, and fails with a message that says so.
    static let requestBodyNotGathered = TransportConformanceCheck("a request body sent while it is produced") {
        context in
        let first = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
        let threshold = first.count / 2
        let rest = Data(repeating: UInt8(ascii: "b"), count: 1024)
        let server = try context.server { request in .text("\(request.body.count)") }
        defer { server.stop() }
        let arrived: LoopbackGate
        do {
            arrived = try server.gate(opening: .requestBodyBytes, atLeast: threshold)
        } catch {
            throw context.failure("could not make the server's gate: \(error)")
        }
        let outcome = HeldBackStream.Outcome()
        let stream = HeldBackStream(
            first: first, rest: rest, gate: arrived, timeout: context.options.timeLimit / 2, outcome: outcome)
        let request = try context.request(
            server.baseURL.appendingPathComponent("upload"), method: .post,
            headers: [(name: "Content-Type", value: "application/octet-stream")],
            body: UploadSource(stream: stream, length: nil))
        let response = try await context.send(request, "the streamed upload")
        let text = try await context.text(response.body)
        try context.expect(
            outcome.heldInVain == false,
            "the transport gathered the streamed request body before sending any of it: a streamed upload must reach the server while it is still being produced (the stream held its last part back until the server had received \(threshold) of its first \(first.count) bytes, and gave up waiting)"
        )
        try context.expect(outcome.heldInVain != nil, "the transport never read the end of the streamed body")
        try context.expect(
            text == "\(first.count + rest.count)" && server.requests.first?.body == first + rest,
            "the server received \(text) bytes, expected \(first.count + rest.count): the first part, then the rest")
    }
}

/// A request body stream that produces `first`, then blocks until `gate` opens (or `timeout` passes) before it
/// produces `rest`: an upload whose producer waits on the network, as one fed by a microphone or another download
/// does.
///
/// Not `Sendable` (Foundation makes `Stream` explicitly non-`Sendable`): it is handed to one `UploadSource`, whose
/// reader alone uses it; what it saw goes to its ``Outcome``.
final class HeldBackStream: InputStream {
    /// Whether the stream waited for the gate in vain: `nil` until it has waited.
    final class Outcome: Sendable {
        private let state = Lock<Bool?>(nil)

        var heldInVain: Bool? { state.withLock { $0 } }

        func record(opened: Bool) { state.withLock { $0 = !opened } }
    }

    private let first: Data
    private let rest: Data
    private let gate: LoopbackGate
    private let timeout: Duration
    private let outcome: Outcome
    /// How many bytes of `first + rest` were read.
    private var position = 0
    private var status = Stream.Status.notOpen

    init(first: Data, rest: Data, gate: LoopbackGate, timeout: Duration, outcome: Outcome) {
        self.first = first
        self.rest = rest
        self.gate = gate
        self.timeout = timeout
        self.outcome = outcome
        // `InputStream`'s designated initializers all need a source; this empty one is never read.
        super.init(data: Data())
    }

    override func open() { status = .open }

    override func close() { status = .closed }

    override var streamStatus: Stream.Status { status }

    override var streamError: (any Error)? { nil }

    override var hasBytesAvailable: Bool { status == .open && position < first.count + rest.count }

    /// The next bytes: of `first` until it is read, then (after the wait) of `rest`; 0 at the end.
    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        guard status == .open, length > 0 else { return status == .closed ? -1 : 0 }
        if position == first.count, outcome.heldInVain == nil {
            // A blocking wait on the transport's reading thread, as any producer that waits for its next bytes.
            outcome.record(opened: gate.wait(timeout: timeout))
        }
        let (part, offset) = position < first.count ? (first, position) : (rest, position - first.count)
        let count = min(length, part.count - offset)
        guard count > 0 else {
            status = .atEnd
            return 0
        }
        part.copyBytes(to: buffer, from: offset..<(offset + count))
        position += count
        return count
    }

    #if !canImport(FoundationNetworking)
    /// No buffer of its own to expose.
    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
        length: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }
    #endif
}
