import Foundation
import LoopbackServer
import NetCore
import NetKitLock

extension TransportConformance {
    /// `send` returns at the response head, while the server still holds the body back.
    static let headBeforeBody = TransportConformanceCheck("head before body") { context in
        // The server holds the body for half the check's time limit (not a fixed few seconds: a busy machine may take
        // that long to hand the head over), so that a transport that waits for the body still fails with this
        // check's own message before the limit.
        let gate = try LoopbackGate()
        let released = Lock<Bool?>(nil)
        let server = try context.server { _ in
            .streamed(headers: [(name: "Content-Type", value: "text/plain")]) { writer in
                let opened = writer.wait(for: gate, timeout: context.options.timeLimit / 2)
                released.withLock { $0 = opened }
                writer.write("body")
            }
        }
        defer { server.stop() }
        let response = try await context.send(try context.request(server.baseURL))
        try context.expect(released.withLock { $0 } == nil, "send returned only after the server had sent the body")
        gate.open()
        let text = try await context.text(response.body)
        try context.expect(released.withLock { $0 } == true, "the server gave up waiting before send returned the head")
        try context.expect(text == "body", "the body was \(text.debugDescription)")
    }

    /// ``NetCore/TransportResponse/headReceivedAt`` is when the head arrived, not when `send` returned or the body
    /// ended: the server sends the head and the first bytes, then holds the rest behind a gate that opens only once
    /// the head is known to be in (`send` returned, or, for a body collected whole, the first bytes were reported
    /// received). The head time must fall between the start of `send` and the opening of the gate, on both roads.
    static let headTime = TransportConformanceCheck("head time") { context in
        let gates = ["/streamed": try LoopbackGate(), "/whole": try LoopbackGate()]
        let server = try context.server { request in
            .streamed(headers: [(name: "Content-Type", value: "text/plain")], framing: .contentLength(8)) { writer in
                writer.write("head")
                // The whole time limit, longer than the check's own waits: a gate that gave up first would release
                // the tail early, and a late head time would then pass for the head's arrival.
                if let gate = gates[request.path] { _ = writer.wait(for: gate, timeout: context.options.timeLimit) }
                writer.write("tail")
            }
        }
        defer { server.stop() }
        let clock = ContinuousClock()

        let start = clock.now
        let streamed = try await context.send(
            try context.request(server.baseURL.appendingPathComponent("streamed")), "the streamed request")
        let returned = clock.now
        gates["/streamed"]?.open()
        let streamedText = try await context.text(streamed.body)
        try context.expect(streamedText == "headtail", "the streamed body was \(streamedText.debugDescription)")
        try context.expect(
            streamed.headReceivedAt >= start && streamed.headReceivedAt <= returned,
            "the head time is \(streamed.headReceivedAt - start) after send began, which returned after \(returned - start): it must fall in between"
        )

        let progress = NetworkProgress()
        progress.follow(.download)
        let request = context.wholeBody(
            try context.request(server.baseURL.appendingPathComponent("whole"), progress: progress))
        let transport = context.transport
        let wholeStart = clock.now
        let sending = Task { try await transport.send(request) }
        defer { sending.cancel() }
        try await context.await(
            progress,
            "the first bytes of a body collected whole were never reported received, so the head time cannot be judged (the check needs them to know the head is in)"
        ) {
            $0.bytesReceived > 0
        }
        let wholeGate = clock.now
        gates["/whole"]?.open()
        let whole: TransportResponse
        do {
            whole = try await sending.value
        } catch {
            throw context.failure("the request collected whole failed: \(String(reflecting: error))")
        }
        let wholeText = try await context.text(whole.body)
        try context.expect(wholeText == "headtail", "the body collected whole was \(wholeText.debugDescription)")
        try context.expect(
            whole.headReceivedAt >= wholeStart && whole.headReceivedAt < wholeGate,
            "for a body collected whole the head time is \(whole.headReceivedAt - wholeGate) after the rest of the body was released; it must be when the head arrived, before"
        )
    }

    /// Each piece the server writes reaches the consumer while the server is still writing.
    static let incrementalStreaming = TransportConformanceCheck("incremental streaming") { context in
        let gates = try (0..<3).map { _ in try LoopbackGate() }
        let timedOut = Lock(false)
        let server = try context.server { _ in
            .streamed(headers: [(name: "Content-Type", value: "application/x-ndjson")]) { writer in
                for (index, gate) in gates.enumerated() {
                    writer.write("{\"line\":\(index)}\n")
                    // Generous: on a machine whose cores are all busy a line may take seconds to be read.
                    if !writer.wait(for: gate, timeout: .seconds(60)) {
                        timedOut.withLock { $0 = true }
                        return
                    }
                }
            }
        }
        defer { server.stop() }
        let response = try await context.send(try context.request(server.baseURL))
        var received = ""
        var opened = 0
        do {
            for try await chunk in response.body {
                received += String(decoding: chunk, as: UTF8.self)
                // Open the gate of each complete line: the server writes the next one only then.
                while opened < gates.count, received.contains("{\"line\":\(opened)}\n") {
                    gates[opened].open()
                    opened += 1
                }
            }
        } catch {
            throw context.failure("the stream failed after \(received.debugDescription): \(String(reflecting: error))")
        }
        try context.expect(
            !timedOut.withLock { $0 },
            "a line reached the consumer only after the server had stopped waiting for it: the body is not delivered as it arrives"
        )
        try context.expect(
            received == "{\"line\":0}\n{\"line\":1}\n{\"line\":2}\n", "the stream was \(received.debugDescription)")
    }

    /// A connection that closes mid-body ends the body with ``NetCore/TransportError/Kind/connectionLost``, never
    /// cleanly, for `Content-Length` and chunked bodies; a body collected whole fails the same way, in `send` or in
    /// the body.
    static let droppedBody = TransportConformanceCheck("a body dropped mid-way") { context in
        let server = try context.server { request in
            if request.path == "/chunked" {
                return .streamed { writer in
                    writer.write(Data(count: 10_000))
                    writer.abort()
                }
            }
            return LoopbackResponse(status: 200, body: Data(count: 50_000), faults: [.dropAfterBodyBytes(1000)])
        }
        defer { server.stop() }
        let sized = try await context.send(try context.request(server.baseURL.appendingPathComponent("length")))
        try await context.expectBrokenBody(sized.body, "a Content-Length body cut after 1,000 of 50,000 bytes")
        let chunked = try await context.send(try context.request(server.baseURL.appendingPathComponent("chunked")))
        try await context.expectBrokenBody(chunked.body, "a chunked body cut before its last chunk")
        try await context.expectBrokenTransfer(
            context.wholeBody(try context.request(server.baseURL.appendingPathComponent("length"))),
            "a Content-Length body cut after 1,000 of 50,000 bytes, collected whole")
        try await context.expectBrokenTransfer(
            context.wholeBody(try context.request(server.baseURL.appendingPathComponent("chunked"))),
            "a chunked body cut before its last chunk, collected whole")
    }

    /// A body shorter than its `Content-Length` ends with ``NetCore/TransportError/Kind/connectionLost``, never as a
    /// short success, also when it is collected whole.
    static let shortBody = TransportConformanceCheck("a body shorter than its Content-Length") { context in
        let server = try context.server { _ in
            LoopbackResponse(status: 200, body: Data(count: 100), faults: [.declaredContentLength(5000)])
        }
        defer { server.stop() }
        let response = try await context.send(try context.request(server.baseURL))
        try await context.expectBrokenBody(response.body, "100 bytes under a Content-Length of 5,000")
        try await context.expectBrokenTransfer(
            context.wholeBody(try context.request(server.baseURL)),
            "100 bytes under a Content-Length of 5,000, collected whole")
    }

    /// Cancelling the calling task while it waits for the head ends `send` with `CancellationError` and closes
    /// the connection.
    static let cancellationBeforeHead = TransportConformanceCheck("cancellation before the head") { context in
        let server = try context.server { _ in LoopbackResponse.text("late").with(.delayBeforeHead(.seconds(60))) }
        defer { server.stop() }
        let transport = context.transport
        let request = try context.request(server.baseURL)
        let sending = Task { _ = try await transport.send(request) }
        try await context.await(.requests, atLeast: 1, on: server, "the request never reached the server")
        sending.cancel()
        try await context.expectCancellation("send, cancelled before the head") { try await sending.value }
        try await context.await(
            .clientAbortedResponses, atLeast: 1, on: server, "the connection stayed open after the cancellation")
    }

    /// Cancelling the task that reads the body ends the read with `CancellationError` and closes the connection.
    static let cancellationDuringBody = TransportConformanceCheck("cancellation during the body") { context in
        let server = try context.server { _ in
            .streamed { writer in
                writer.write("first")
                _ = writer.waitForClientClose(timeout: .seconds(20))
            }
        }
        defer { server.stop() }
        let transport = context.transport
        let request = try context.request(server.baseURL)
        let (firstChunk, signal) = AsyncStream<Void>.makeStream()
        let reading = Task {
            let response = try await transport.send(request)
            var iterator = response.body.makeAsyncIterator()
            _ = try await iterator.next()
            signal.yield()
            // Each round takes a chunk or ends; the server sends nothing more until the connection closes.
            while try await iterator.next() != nil {}
        }
        for await _ in firstChunk { break }
        reading.cancel()
        try await context.expectCancellation("reading the body, cancelled mid-way") { try await reading.value }
        try await context.await(
            .clientAbortedResponses, atLeast: 1, on: server, "the connection stayed open after the cancellation")
    }

    /// A consumer that stops reading early, or drops a body unread, lets the transport close the connection.
    static let abandonedBody = TransportConformanceCheck("a body abandoned by its consumer") { context in
        let server = try context.server { _ in
            .streamed { writer in
                writer.write("first")
                _ = writer.waitForClientClose(timeout: .seconds(20))
            }
        }
        defer { server.stop() }
        do {
            let response = try await context.send(try context.request(server.baseURL), "the first request")
            for try await _ in response.body { break }
        } catch {
            throw context.failure("reading the first chunk failed: \(String(reflecting: error))")
        }
        try await context.await(
            .clientAbortedResponses, atLeast: 1, on: server,
            "the connection stayed open after the consumer stopped reading")
        do {
            _ = try await context.send(try context.request(server.baseURL), "the second request")
        }
        try await context.await(
            .clientAbortedResponses, atLeast: 2, on: server,
            "the connection stayed open after the body was dropped unread")
    }
}
