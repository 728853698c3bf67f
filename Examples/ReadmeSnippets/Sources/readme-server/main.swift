// Runs the README's server program (its ```swift server-program block, copied beside this file) against a server
// on 127.0.0.1 that this file starts, and checks what it got. The server is a few POSIX calls on a thread: the
// program must link no FoundationNetworking, and NetKit's test server is not a product.
import Checks
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A server that answers `POST /replies` with JSON and `GET /chat` with server-sent events ending in `[DONE]`, one
/// connection at a time, each closed after its response; it answers `count` connections, then its thread ends.
func startServer(answering count: Int) -> Int {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            check(bind(listener, socketAddress, length) == 0, "the test server binds 127.0.0.1")
            check(listen(listener, 8) == 0, "the test server listens")
            check(getsockname(listener, socketAddress, &length) == 0, "the test server knows its port")
        }
    }
    let port = Int(UInt16(bigEndian: address.sin_port))
    Thread.detachNewThread {
        for _ in 0..<count {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let request = readRequest(connection)
            let answer =
                request.hasPrefix("post /replies ") && request.contains("authorization: bearer t-1")
                    && request.hasSuffix(#"{"text":"hello"}"#)
                ? response("application/json", #"{"id":7,"text":"hello"}"#)
                : request.hasPrefix("get /chat ")
                    ? response(
                        "text/event-stream",
                        "data: {\"delta\":\"Hel\"}\n\ndata: {\"delta\":\"lo\"}\n\ndata: [DONE]\n\n")
                    : "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            _ = Array(answer.utf8).withUnsafeBytes { send(connection, $0.baseAddress, $0.count, 0) }
            close(connection)
        }
        close(listener)
    }
    return port
}

/// The request's head, lowercased, and its Content-Length body as sent.
func readRequest(_ connection: Int32) -> String {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while bytes.count < 1 << 20 {
        let count = recv(connection, &buffer, buffer.count, 0)
        guard count > 0 else { break }
        bytes += buffer[0..<count]
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { continue }
        let head = text[..<end.lowerBound].lowercased()
        let length =
            head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        if text.utf8.count - text.utf8.distance(from: text.startIndex, to: end.upperBound) >= length {
            return head + "\r\n\r\n" + text[end.upperBound...]
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}

func response(_ type: String, _ body: String) -> String {
    "HTTP/1.1 200 OK\r\ncontent-type: \(type)\r\ncontent-length: \(body.utf8.count)\r\nconnection: close\r\n\r\n\(body)"
}

let port = startServer(answering: 2)
let (reply, chat) = try await talk(to: URL(string: "http://127.0.0.1:\(port)")!, token: "t-1")
check(reply.id == 7 && reply.text == "hello", "the server program's POST decodes its reply")
check(chat == "Hello", "the server program's chat stream decodes each delta and ends at [DONE]")
