#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// A request head as the tiny server read it.
struct TinyRequest: Sendable {
    let method: String
    let path: String
    let fields: [(name: String, value: String)]

    func header(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// One accepted connection: the handler writes its whole answer through it.
final class TinyConnection: @unchecked Sendable {
    let fd: Int32

    init(fd: Int32) { self.fd = fd }

    /// Writes every byte; false once the peer has gone.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in
                send(fd, buffer.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    @discardableResult
    func write(_ text: String) -> Bool { write(Array(text.utf8)) }
}

/// A minimal HTTP/1.1 server on 127.0.0.1 for these programs: a thread per connection, request heads only (no
/// request bodies), keep-alive. The handler writes the whole response and returns whether to keep the
/// connection. Raw sockets, so that it can answer what a well-behaved server library would refuse to write.
final class TinyServer: @unchecked Sendable {
    typealias Handler = @Sendable (TinyRequest, TinyConnection) -> Bool
    let port: UInt16
    private let listener: Int32
    private let handler: Handler

    init(handler: @escaping Handler) {
        signal(SIGPIPE, SIG_IGN)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0
                    && listen(listener, 128) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        precondition(bound, "cannot listen on 127.0.0.1")
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        self.handler = handler
        Thread {
            while true {
                let fd = accept(listener, nil, nil)
                if fd < 0 { return }
                Thread { TinyServer.serve(fd: fd, handler: handler) }.start()
            }
        }.start()
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    private static func serve(fd: Int32, handler: Handler) {
        defer { close(fd) }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let connection = TinyConnection(fd: fd)
        while true {
            if let end = headEnd(pending) {
                let head = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeSubrange(..<(end + 4))
                guard let request = parse(head), handler(request, connection) else { return }
                continue
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return }
            pending.append(contentsOf: buffer[..<n])
        }
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func parse(_ head: String) -> TinyRequest? {
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2 else { return nil }
        let fields = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return TinyRequest(method: String(parts[0]), path: String(parts[1]), fields: fields)
    }
}

/// Process measurements read from the kernel.
enum ProcessStats {
    /// User + system CPU seconds of the whole process so far.
    static func cpuSeconds() -> (user: Double, system: Double) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return (seconds(usage.ru_utime), seconds(usage.ru_stime))
    }

    /// A field of /proc/self/status in KiB (VmRSS, VmHWM), or 0 where there is none.
    static func statusKiB(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}

/// Seconds since an arbitrary start, monotonic.
func now() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}

func format(_ value: Double, _ digits: Int = 2) -> String {
    String(format: "%.\(digits)f", value)
}

/// The error as a user sees it, without the URL (the fact is the error, not where it happened).
func describe(_ error: any Error) -> String {
    if let error = error as? URLError {
        let failure = (error as NSError).userInfo[NSLocalizedDescriptionKey] as? String ?? "(no description)"
        return "URLError \(error.code.rawValue) \"\(failure)\""
    }
    return "\(type(of: error)): \(error)"
}
