import Foundation

/// What a line-reading run saw; every implementation of a case must agree on it.
struct LineTally: Equatable {
    var lines = 0
    var bytes = 0
}

/// Baseline (b): a plain synchronous chunked line splitter, one `String` per non-empty line; what a careful
/// hand-written loop over the same chunks does with no async machinery at all.
func synchronousLines(_ chunks: [Data]) -> LineTally {
    var tally = LineTally()
    var carried: [UInt8] = []
    func emit(_ bytes: UnsafeBufferPointer<UInt8>) {
        var count = bytes.count
        if count > 0, bytes[count - 1] == 0x0D { count -= 1 }
        guard count > 0 else { return }
        let line = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<count]), as: UTF8.self)
        tally.lines += 1
        tally.bytes += line.utf8.count
    }
    for chunk in chunks {
        chunk.withUnsafeBytes { raw in
            raw.withMemoryRebound(to: UInt8.self) { bytes in
                guard let base = bytes.baseAddress else { return }
                var start = 0
                while start < bytes.count, let hit = memchr(base + start, 0x0A, bytes.count - start) {
                    let newline = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
                    if carried.isEmpty {
                        emit(UnsafeBufferPointer(rebasing: bytes[start..<newline]))
                    } else {
                        carried.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<newline]))
                        carried.withUnsafeBufferPointer { emit($0) }
                        carried.removeAll(keepingCapacity: true)
                    }
                    start = newline + 1
                }
                carried.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
            }
        }
    }
    carried.withUnsafeBufferPointer { emit($0) }
    return tally
}

/// Baseline for NDJSON: the same synchronous split (`memchr`), each non-empty line handed to one `JSONDecoder`
/// as a slice of its chunk.
func synchronousNDJSON<Item: Decodable>(
    _ chunks: [Data], as type: Item.Type, decoder: JSONDecoder, _ each: (Item) -> Void
) throws {
    var carried = Data()
    func decode(_ line: Data) throws {
        let trimmed = line.last == 0x0D ? line.dropLast() : line
        if !trimmed.isEmpty { each(try decoder.decode(Item.self, from: trimmed)) }
    }
    for chunk in chunks {
        let newlines: [Int] = chunk.withUnsafeBytes { raw in
            var found: [Int] = []
            guard let base = raw.baseAddress else { return found }
            var start = 0
            while start < raw.count, let hit = memchr(base + start, 0x0A, raw.count - start) {
                let newline = base.distance(to: UnsafeRawPointer(hit))
                found.append(newline)
                start = newline + 1
            }
            return found
        }
        var start = chunk.startIndex
        for newline in newlines {
            let end = chunk.startIndex + newline
            if carried.isEmpty {
                try decode(chunk[start..<end])
            } else {
                carried.append(chunk[start..<end])
                try decode(carried)
                carried.removeAll(keepingCapacity: true)
            }
            start = end + 1
        }
        carried.append(chunk[start...])
    }
    try decode(carried)
}

/// Baseline (a): EKNetwork's design. A task yields every byte of the body into an
/// `AsyncThrowingStream<UInt8, Error>` (as its `URLSession.bytes(for:)` bridge does), and `lines()` is a second
/// task that assembles lines from those bytes and yields each into an `AsyncThrowingStream<String, Error>`.
func perByteStreamLines(_ chunks: [Data]) async throws -> LineTally {
    let bytes = AsyncThrowingStream<UInt8, any Error> { continuation in
        let producer = Task {
            for chunk in chunks {
                for byte in chunk { continuation.yield(byte) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in producer.cancel() }
    }
    let lines = AsyncThrowingStream<String, any Error> { continuation in
        let assembler = Task {
            var buffer: [UInt8] = []
            func flush() {
                if buffer.last == 0x0D { buffer.removeLast() }
                if !buffer.isEmpty { continuation.yield(String(decoding: buffer, as: UTF8.self)) }
                buffer.removeAll(keepingCapacity: true)
            }
            do {
                for try await byte in bytes {
                    if byte == 0x0A { flush() } else { buffer.append(byte) }
                }
                flush()
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in assembler.cancel() }
    }
    var tally = LineTally()
    for try await line in lines {
        tally.lines += 1
        tally.bytes += line.utf8.count
    }
    return tally
}
