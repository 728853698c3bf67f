import Foundation
import LoopbackServer
#if canImport(Glibc)
import Glibc
#endif

/// The server of the loopback cases: NetKit's `LoopbackServer` with ``TransferRoutes``, or nginx (Debian's
/// package, when installed) started by the benchmark from a configuration of its own, serving the same routes
/// from files. nginx answers from one worker process with `sendfile`, so it costs the shared cores less than
/// the loopback server's thread per connection.
///
/// Not `Sendable`: each case makes, uses and stops its own server.
final class BenchmarkServer {
    let name: String
    let baseURL: URL
    let port: Int
    private let loopback: LoopbackServer?
    private let nginx: Process?
    private let directory: URL?

    /// The server `kind` names (`loopback` or `nginx`), serving the given bodies; the loopback server when nginx
    /// is not installed.
    static func make(_ kind: String, bulk: [Int] = [], lines: [Int] = []) throws -> BenchmarkServer {
        switch kind {
        case "loopback": return try BenchmarkServer()
        case "nginx":
            if let server = try BenchmarkServer(nginxServing: bulk, lines: lines) { return server }
            print("nginx is not installed: using LoopbackServer\n")
            return try BenchmarkServer()
        default: fatalError("unknown server \(kind): use loopback or nginx")
        }
    }

    /// The loopback server in this process.
    init() throws {
        let server = try LoopbackServer { TransferRoutes.handle($0) }
        self.name = "LoopbackServer"
        self.loopback = server
        self.baseURL = server.baseURL
        self.port = server.port
        self.nginx = nil
        self.directory = nil
    }

    /// nginx on 127.0.0.1, serving `/small` and the given `/bulk/<bytes>` and `/lines/<bytes>` bodies from files in
    /// a temporary directory (removed by ``stop()``); `nil` when nginx is not installed.
    init?(nginxServing bulk: [Int], lines: [Int]) throws {
        let binary = "/usr/sbin/nginx"
        guard FileManager.default.isExecutableFile(atPath: binary) else { return nil }
        let directory = FileManager.default.temporaryDirectory.appending(path: "netkit-bench-nginx-\(getpid())")
        let root = directory.appending(path: "www")
        try FileManager.default.createDirectory(at: root.appending(path: "bulk"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appending(path: "lines"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: directory.appending(path: "logs"), withIntermediateDirectories: true)
        for size in bulk {
            try Self.writeFile(root.appending(path: "bulk/\(size)"), size: size) {
                LoopbackBodyPattern.data(offset: $0, count: $1)
            }
        }
        for size in lines {
            let body = TransferRoutes.linesBody(approximately: size)
            try Self.writeFile(root.appending(path: "lines/\(size)"), size: body.bytes) { offset, count in
                let block = TransferRoutes.lineBlock
                precondition(offset % block.count == 0)
                return Data(block.prefix(count))
            }
        }
        let port = try Self.freePort()
        let small = String(decoding: TransferRoutes.smallBody, as: UTF8.self)
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/logs/error.log error;
            events { worker_connections 4096; }
            http {
                access_log off;
                sendfile on;
                tcp_nopush on;
                keepalive_requests 100000000;
                keepalive_timeout 120s;
                client_body_temp_path \(directory.path)/tmp-body;
                proxy_temp_path \(directory.path)/tmp-proxy;
                fastcgi_temp_path \(directory.path)/tmp-fastcgi;
                uwsgi_temp_path \(directory.path)/tmp-uwsgi;
                scgi_temp_path \(directory.path)/tmp-scgi;
                server {
                    listen 127.0.0.1:\(port);
                    root \(root.path);
                    location = /small { default_type application/json; return 200 '\(small)'; }
                    location /bulk/ { default_type application/octet-stream; }
                    location /lines/ { default_type application/x-ndjson; }
                }
            }
            """
        let configurationFile = directory.appending(path: "nginx.conf")
        try configuration.write(to: configurationFile, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "-p", directory.path, "-c", configurationFile.path, "-e", "\(directory.path)/logs/error.log",
        ]
        try process.run()
        self.name = "nginx"
        self.loopback = nil
        self.nginx = process
        self.directory = directory
        self.port = port
        // Cannot fail: a literal scheme and host with a decimal port.
        self.baseURL = URL(string: "http://127.0.0.1:\(port)")!
        // Up to 5 s for nginx to listen, checked every 10 ms.
        for _ in 0..<500 {
            if (try? PlainTCPReader.fetchBlocking(port: port, path: "/small")) == TransferRoutes.smallBody.count {
                return
            }
            usleep(10_000)
        }
        stop()
        fatalError("nginx did not start; see \(directory.path)/logs/error.log")
    }

    func stop() {
        loopback?.stop()
        if let nginx, nginx.isRunning {
            // SIGKILL: nginx inherits the signal mask of the dispatch thread that started it, with SIGTERM and
            // SIGQUIT blocked, so it would never see terminate().
            kill(nginx.processIdentifier, SIGKILL)
            nginx.waitUntilExit()
        }
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Writes `size` bytes made by `piece(offset, count)` in pieces of at most 1 MiB (lines: one block each).
    private static func writeFile(_ url: URL, size: Int, piece: (Int, Int) -> Data) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw PlainTCPReader.Failure(description: "cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let step = TransferRoutes.lineBlock.count
        for offset in stride(from: 0, to: size, by: step) {
            try handle.write(contentsOf: piece(offset, min(step, size - offset)))
        }
    }

    /// A port the kernel hands out for 127.0.0.1, released for nginx to take.
    private static func freePort() throws -> Int {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw PlainTCPReader.Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw PlainTCPReader.Failure(description: "bind: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
