import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server check of the `stream` case: one GET over a blocking socket, the body read with `recv` into a
/// 256 KiB buffer and thrown away. No HTTP client is faster; if this is not well above URLSession, the server
/// is the bottleneck.
enum PlainTCPReader {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// GETs `path` from 127.0.0.1:`port` on a thread of its own; returns the body's size (`Content-Length`
    /// framing only).
    static func fetch(port: Int, path: String) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try fetchBlocking(port: port, path: path) })
            }
        }
    }

    static func fetchBlocking(port: Int, path: String) throws -> Int {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect: errno \(errno)") }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw Failure(description: "send: errno \(errno)")
        }
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var head = [UInt8]()
        var bodyBytes = 0
        var contentLength: Int?
        // Each round receives at least one byte or leaves the loop; the body is finite.
        while contentLength.map({ bodyBytes < $0 }) ?? true {
            let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard received > 0 else { break }
            if contentLength == nil {
                head.append(contentsOf: buffer[0..<received])
                guard let end = headEnd(head) else { continue }
                let text = String(decoding: head[0..<end], as: UTF8.self).lowercased()
                guard let line = text.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                    let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                else { throw Failure(description: "no Content-Length in the response head") }
                contentLength = length
                bodyBytes = head.count - end - 4
                head = []
            } else {
                bodyBytes += received
            }
        }
        guard let contentLength, bodyBytes == contentLength else {
            throw Failure(description: "the body ended after \(bodyBytes) bytes")
        }
        return bodyBytes
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
