import Foundation
import LoopbackServer
import Testing

@Suite("Streamed response bodies")
struct StreamedResponseTests {
    private static let get = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"

    @Test func chunkedPiecesReachTheClientWhileTheProducerIsStillRunning() throws {
        let gate = try LoopbackGate()
        let server = try makeServer(
            .streamed(headers: [(name: "Content-Type", value: "application/x-ndjson")]) { writer in
                writer.write("{\"n\":1}\n")
                guard writer.wait(for: gate, timeout: .seconds(30)) else { return writer.abort() }
                writer.write("{\"n\":2}\n")
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.get)
        let head = try client.readHead()
        let first = try client.readChunk()
        // The producer is parked on the closed gate, so this record left before the body was finished.
        #expect(!gate.isOpen)
        gate.open()
        let second = try client.readChunk()
        let end = try client.readChunk()

        #expect(head.headers.first { $0.name == "Transfer-Encoding" }?.value == "chunked")
        #expect(head.headers.first { $0.name == "Content-Type" }?.value == "application/x-ndjson")
        #expect(first.map { String(decoding: $0, as: UTF8.self) } == "{\"n\":1}\n")
        #expect(second.map { String(decoding: $0, as: UTF8.self) } == "{\"n\":2}\n")
        #expect(end == nil)
    }

    @Test func declaredLengthBodyIsFramedByContentLengthAndKeepsTheConnection() throws {
        let server = try makeServer(
            .streamed(framing: .contentLength(10)) { writer in
                writer.write(Data("01234".utf8))
                writer.write([UInt8]("56789".utf8))
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.get)
        let first = try client.readResponse()
        try client.send(Self.get)
        let second = try client.readResponse()

        #expect(first.header("Content-Length") == "10")
        #expect(first.header("Transfer-Encoding") == nil)
        #expect(first.bodyText == "0123456789")
        #expect(second.bodyText == "0123456789")
        #expect(server.acceptedConnections == 1)
    }

    @Test func chunkedBodyKeepsTheConnectionForTheNextRequest() async throws {
        let results = Recorder<[Bool]>([])
        let server = try LoopbackServer { request in
            .streamed { writer in
                writer.write("you asked ")
                writer.write("for \(request.path)")
                let ended = writer.end()
                let lateWrite = writer.write("too late")
                results.update { $0 += [ended, lateWrite] }
            }
        }
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try client.readResponse()
        try client.send("GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        let second = try client.readResponse()

        #expect(first.chunkSizes == [10, 6])
        #expect(first.bodyText == "you asked for /a")
        client.close()
        // The connection ends after the producers return, so their results are in by then.
        try await server.wait(for: .closedConnections, atLeast: 1)

        #expect(second.bodyText == "you asked for /b")
        #expect(server.acceptedConnections == 1)
        #expect(results.value == [true, false, true, false])
    }

    @Test func abortMidChunkedBodyEndsTheStreamWithoutTheLastChunk() async throws {
        let lateWrite = Recorder<Bool?>(nil)
        let server = try makeServer(
            .streamed { writer in
                writer.write("hello")
                writer.abort()
                lateWrite.set(writer.write("more"))
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.get)
        _ = try client.readHead()
        let first = try client.readChunk()
        let rest = try client.readUntilEOF()
        client.close()
        try await server.wait(for: .closedConnections, atLeast: 1)

        #expect(first == Array("hello".utf8))
        #expect(rest.isEmpty)
        #expect(lateWrite.value == false)
        #expect(server.clientAbortedResponses == 0)
    }

    @Test func abortMidContentLengthBodyLeavesItShort() throws {
        let server = try makeServer(
            .streamed(framing: .contentLength(10)) { writer in
                writer.write("0123")
                writer.abort()
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.get)
        let head = try client.readHead()
        let body = try client.readUntilEOF()

        #expect(head.headers.first { $0.name == "Content-Length" }?.value == "10")
        #expect(body == Array("0123".utf8))
    }

    @Test func returningShortOfTheDeclaredLengthDropsTheConnection() async throws {
        let ended = Recorder<Bool?>(nil)
        let server = try makeServer(
            .streamed(framing: .contentLength(10)) { writer in
                writer.write("0123")
                ended.set(writer.end())
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.get)
        _ = try client.readHead()
        let body = try client.readUntilEOF()
        client.close()
        try await server.wait(for: .closedConnections, atLeast: 1)

        #expect(body == Array("0123".utf8))
        #expect(ended.value == false)
    }

    @Test func writingPastTheDeclaredLengthSendsNothingAndDrops() async throws {
        let results = Recorder<[Bool]>([])
        let server = try makeServer(
            .streamed(framing: .contentLength(3)) { writer in
                let first = writer.write("ab")
                let second = writer.write("cd")
                results.set([first, second, writer.end()])
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.get)
        _ = try client.readHead()
        let body = try client.readUntilEOF()
        client.close()
        try await server.wait(for: .closedConnections, atLeast: 1)

        #expect(body == Array("ab".utf8))
        #expect(results.value == [true, false, false])
    }

    @Test func producerSeesTheClientCloseAndItCountsAsAnAbort() async throws {
        let noticed = Recorder<Bool?>(nil)
        let server = try makeServer(
            .streamed { writer in
                writer.write("first")
                noticed.set(writer.waitForClientClose(timeout: .seconds(60)))
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.get)
        _ = try client.readHead()
        #expect(try client.readChunk() == Array("first".utf8))
        client.close()

        // Well under the 60 s wait: only the client's close can end it this soon.
        try await server.wait(for: .clientAbortedResponses, atLeast: 1, timeout: .seconds(10))
        #expect(noticed.value == true)
    }

    @Test func clientBreakingOffWhileTheProducerWaitsOnAGateIsSeen() async throws {
        let gate = try LoopbackGate()
        let outcome = Recorder<[Bool]>([])
        let server = try makeServer(
            .streamed { writer in
                writer.write("{\"n\":1}\n")
                let opened = writer.wait(for: gate, timeout: .seconds(60))
                outcome.set([opened, writer.clientHasClosed])
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.get)
        _ = try client.readHead()
        _ = try client.readChunk()
        client.close()

        try await server.wait(for: .clientAbortedResponses, atLeast: 1, timeout: .seconds(10))
        try await server.wait(for: .closedConnections, atLeast: 1, timeout: .seconds(10))
        #expect(outcome.value == [false, true])
        #expect(!gate.isOpen)
    }

    @Test func writesFailOnceTheClientHasGone() async throws {
        let outcome = Recorder<(failed: Bool, clientClosed: Bool)?>(nil)
        let server = try makeServer(
            .streamed { writer in
                let piece = Data(count: 64 * 1024)
                var failed = false
                // At most 640 MiB: far beyond what the socket buffers hold once the client stops reading.
                for _ in 0..<10_000 {
                    failed = !writer.write(piece)
                    if failed { break }
                }
                outcome.set((failed: failed, clientClosed: writer.clientHasClosed))
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.get)
        _ = try client.readHead()
        client.close()

        try await server.wait(for: .clientAbortedResponses, atLeast: 1, timeout: .seconds(10))
        #expect(outcome.value?.failed == true)
        #expect(outcome.value?.clientClosed == true)
    }

    @Test func bytesDeliveredCountsWhatReachedTheClientNotWhatTheServerKernelHeld() async throws {
        let size = 64 << 20
        let outcome = Recorder<(written: Int, delivered: Int)?>(nil)
        let server = try makeServer(
            .streamed(framing: .contentLength(size)) { writer in
                let piece = Data(count: 64 * 1024)
                // At most size / piece rounds: each writes a piece or ends the loop. 64 MiB is more than the two
                // sockets' buffers hold, so a write fails once the client has gone.
                while writer.bytesWritten < size, writer.write(piece) {}
                outcome.set((written: writer.bytesWritten, delivered: writer.bytesDelivered))
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.get)
        _ = try client.readHead()
        let read = try client.readExactly(256 * 1024).count
        client.close()

        try await server.wait(for: .clientAbortedResponses, atLeast: 1, timeout: .seconds(10))
        let result = try #require(outcome.value)
        #expect(result.written < size)
        #expect(result.delivered >= read)
        #expect(result.delivered <= result.written)
    }

    @Test func stopReleasesAProducerWaitingOnAGate() async throws {
        let gate = try LoopbackGate()
        let opened = Recorder<Bool?>(nil)
        let server = try makeServer(
            .streamed { writer in
                writer.write("a")
                opened.set(writer.wait(for: gate, timeout: .seconds(60)))
            })
        let client = try TestClient(port: server.port)
        try client.send(Self.get)
        _ = try client.readHead()
        _ = try client.readChunk()

        let elapsed = measure { server.stop() }

        // stop() joins the connection thread, so the producer has returned by now.
        #expect(elapsed < .seconds(10))
        #expect(opened.value == false)
        #expect(server.clientAbortedResponses == 0)
        #expect(try client.readUntilEOF().isEmpty)
    }

    @Test func headRequestsGetTheFramingButNeverRunTheProducer() throws {
        let runs = Recorder(0)
        let server = try makeServer(
            .streamed { writer in
                runs.update { $0 += 1 }
                writer.write("body")
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readResponse(toHEAD: true)
        try client.send(Self.get)
        let get = try client.readResponse()

        #expect(head.header("Transfer-Encoding") == "chunked")
        #expect(get.bodyText == "body")
        #expect(runs.value == 1)
    }

    @Test func noContentStatusesNeverRunTheProducer() throws {
        let runs = Recorder(0)
        let server = try makeServer(
            .streamed(status: 204, framing: .contentLength(4)) { writer in
                runs.update { $0 += 1 }
                writer.write("body")
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.get + Self.get)
        let first = try client.readResponse()
        let second = try client.readResponse()

        #expect(first.status == 204)
        #expect(first.header("Content-Length") == nil)
        #expect(second.status == 204)
        #expect(runs.value == 0)
    }

    @Test func waitingForACloseThatNeverComesTimesOut() throws {
        let waited = Recorder<Bool?>(nil)
        let server = try makeServer(
            .streamed { writer in
                waited.set(writer.waitForClientClose(timeout: .milliseconds(30)))
                writer.write("still here")
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.get)
        let response = try client.readResponse()

        #expect(response.bodyText == "still here")
        #expect(waited.value == false)
    }

    @Test func delayBeforeBodyHoldsTheProducerBackUntilTheClientGivesUp() async throws {
        let runs = Recorder(0)
        let server = try makeServer(
            .streamed(faults: [.delayBeforeBody(.seconds(60))]) { writer in
                runs.update { $0 += 1 }
                writer.write("never")
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.get)
        let head = try client.readHead()
        // Not a timing assumption: the body is held back for 60 s, far beyond this 100 ms look.
        let bodyArrived = client.isReadable(within: 100)
        client.close()

        try await server.wait(for: .clientAbortedResponses, atLeast: 1, timeout: .seconds(10))
        #expect(head.status == 200)
        #expect(!bodyArrived)
        #expect(runs.value == 0)
    }

    @Test func http10ClientsGetARawBodyEndedByTheClose() throws {
        let server = try makeServer(
            .streamed { writer in
                writer.write("a")
                writer.write("b")
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let response = try client.readResponse()

        #expect(response.header("Transfer-Encoding") == nil)
        #expect(response.header("Content-Length") == nil)
        #expect(response.header("Connection") == "close")
        #expect(response.bodyText == "ab")
    }

    @Test func closeAfterResponseAppliesToStreamedBodies() throws {
        let server = try makeServer(.streamed(faults: [.closeAfterResponse]) { $0.write("bye") })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.get)
        let response = try client.readResponse()

        #expect(response.header("Connection") == "close")
        #expect(response.bodyText == "bye")
        #expect(try client.readsEOF())
    }

    @Test func faultsThatReshapeABufferedBodyAreRefusedLoudly() throws {
        let server = try makeServer(
            .streamed(faults: [.chunked(sizes: [1]), .splitWrites(sizes: [2])]) { $0.write("x") })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.get)
        let response = try client.readResponse()

        #expect(response.status == 500)
        #expect(response.bodyText.contains("chunked, splitWrites"))
    }

    @Test func theWriterIsDeadOnceItsProducerHasReturned() throws {
        let kept = Recorder<LoopbackBodyWriter?>(nil)
        let server = try makeServer(
            .streamed { writer in
                writer.write("x")
                kept.set(writer)
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        try client.send(Self.get)
        _ = try client.readResponse()

        let writer = try #require(kept.value)

        #expect(!writer.write("late"))
        #expect(writer.bytesWritten == 1)
        // Nothing leaked onto the connection: the next response is intact.
        try client.send(Self.get)
        #expect(try client.readResponse().bodyText == "x")
    }

    @Test func patternedBodyOfManyMegabytesArrivesIntact() async throws {
        let count = 8 * 1024 * 1024 + 13
        // The server has written the last bytes into the socket's buffers long before a client checking the
        // pattern under the thread sanitizer has read them (once more than 30 s): its wait for the next request
        // must outlast that, or it closes the kept-alive connection first.
        let server = try makeServer(limits: LoopbackLimits(idleTimeout: .seconds(600)), .patterned(byteCount: count))
        defer { server.stop() }
        let (head, mismatches, nextStatus) = try await onDedicatedThread {
            let client = try TestClient(port: server.port)
            try client.send(Self.get)
            let head = try client.readHead()
            var offset = 0
            var mismatches = 0
            try client.stream(count) { piece in
                // Whole pieces against the pattern: a per-byte check costs seconds in a debug build.
                if Data(piece) != LoopbackBodyPattern.data(offset: offset, count: piece.count) { mismatches += 1 }
                offset += piece.count
            }
            try client.send(Self.get)
            return (head, mismatches, try client.readHead().status)
        }

        #expect(head.headers.first { $0.name == "Content-Length" }?.value == "\(count)")
        #expect(mismatches == 0)
        #expect(nextStatus == 200)
    }

    @Test func patternedChunkedBodyContinuesThePatternAcrossPieces() throws {
        let count = 600_000
        let server = try makeServer(
            .streamed { writer in
                writer.writePattern(byteCount: 1)
                writer.writePattern(byteCount: count - 1)
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.get)
        let response = try client.readResponse()

        #expect(response.body.count == count)
        #expect(Data(response.body) == LoopbackBodyPattern.data(count: count))
        #expect(response.chunkSizes.allSatisfy { $0 <= 251 * 1024 })
    }
}
