import Foundation
import LoopbackServer

/// What the loopback cases (`stream`, `slowconsumer`, `send`) ask the server for, and how it answers.
///
/// - `/small`: a small JSON object, the same one the `refresh` case decodes;
/// - `/bulk/<bytes>`: `<bytes>` of ``LoopbackBodyPattern`` with a `Content-Length`, sent from one shared
///   buffer (the server holds no body);
/// - `/lines/<bytes>`: `<bytes>` of NDJSON-like lines (about 100 bytes each) with a `Content-Length`, written
///   from one shared 1 MiB block that ends with a line end.
enum TransferRoutes {
    static let smallBody = Data(#"{"id":1,"name":"ann","email":"ann@example.com"}"#.utf8)

    /// About 1 MiB of lines, ending with a line end; bodies repeat it and cut the last copy at a line end.
    static let lineBlock: Data = {
        var block = Data()
        var index = 0
        while block.count < 1 << 20 {
            block.append(
                contentsOf:
                    "{\"id\":\(index),\"name\":\"user-\(index)\",\"email\":\"user\(index)@example.com\",\"score\":\(index % 1000).5}\n"
                    .utf8)
            index += 1
        }
        return block
    }()

    /// The exact size and line count of a `/lines/<bytes>` body: whole blocks, then whole lines of one more.
    static func linesBody(approximately bytes: Int) -> (bytes: Int, lines: Int, blocks: Int, tail: Int) {
        let blocks = bytes / lineBlock.count
        let linesPerBlock = lineBlock.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        var tail = 0
        var tailLines = 0
        let wanted = bytes - blocks * lineBlock.count
        if wanted > 0 {
            for (offset, byte) in lineBlock.enumerated() where byte == 0x0A {
                guard offset + 1 <= wanted else { break }
                tail = offset + 1
                tailLines += 1
            }
        }
        return (blocks * lineBlock.count + tail, blocks * linesPerBlock + tailLines, blocks, tail)
    }

    static func handle(_ request: LoopbackRequest) -> LoopbackResponse {
        let parts = request.path.split(separator: "/")
        switch (parts.first, parts.count == 2 ? Int(parts[1]) : nil) {
        case ("small", _):
            return LoopbackResponse(
                status: 200, headers: [(name: "Content-Type", value: "application/json")], body: smallBody)
        case ("bulk", let bytes?):
            return .patterned(byteCount: bytes)
        case ("lines", let bytes?):
            let body = linesBody(approximately: bytes)
            return .streamed(
                headers: [(name: "Content-Type", value: "application/x-ndjson")], framing: .contentLength(body.bytes)
            ) { writer in
                for _ in 0..<body.blocks {
                    guard writer.write(lineBlock) else { return }
                }
                if body.tail > 0 { writer.write(lineBlock.prefix(body.tail)) }
            }
        default:
            return .text("no such route: \(request.path)", status: 404)
        }
    }
}
