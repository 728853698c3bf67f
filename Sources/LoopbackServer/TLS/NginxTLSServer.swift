import Foundation
import NetKitLock

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real TLS (and HTTP/2) server on 127.0.0.1: Debian's nginx, run as a child process with a generated
/// configuration and the certificates of a ``TestCertificateAuthority``.
///
/// The loopback servers of this module speak plain HTTP/1.1 only; TLS, ALPN, HTTP/2, client certificates and
/// protocol versions need a real implementation, and nginx is small, packaged, and starts in milliseconds.
///
/// nginx runs in the foreground as one process (`daemon off; master_process off;`), everything it writes (pid file,
/// logs, temporary folders, configuration, a copy of the certificates) in a temporary folder of its own. It listens
/// with TLS on ``port`` and without on ``plainPort``, and answers:
///
/// - `/hello`: 200, `hello` (`text/plain`);
/// - `/protocol`: the request's `$server_protocol`, `HTTP/2.0` or `HTTP/1.1`;
/// - `/tls`: the connection's `$ssl_protocol`, such as `TLSv1.3` (empty on the plain port);
/// - `/client`: `$ssl_client_verify` (`SUCCESS`, `NONE`, `FAILED:…`), a newline, and `$ssl_client_s_dn`;
/// - `/echo-headers`: one `name: value` line each for the method and the request's `Host`, `User-Agent`,
///   `Authorization`, `Cookie` and `X-Test` headers (empty values for absent ones);
/// - anything else: 404, `not found`; `extraLocations` can add more.
///
/// ``stop()`` (or `deinit`) ends nginx (SIGTERM, then SIGKILL) and deletes the folder. A watchdog shell started
/// beside nginx ends it too if the test process dies without stopping it, so a crashed run leaves no server behind.
package final class NginxTLSServer: Sendable {
    /// The TLS port on 127.0.0.1.
    package let port: Int
    /// The plain-HTTP port on 127.0.0.1 (same locations).
    package let plainPort: Int
    /// The temporary folder holding the configuration, logs and certificates; deleted by ``stop()``.
    package let directory: URL
    /// The nginx process's id.
    package let processIdentifier: Int32
    /// How long `init` took, from the first file written to the first accepted connection.
    package let startupDuration: Duration

    private let process: ChildProcess
    /// `sh` waiting on a pipe only this process writes to (`input`, the writing end): when this process dies the
    /// pipe ends and `sh` sends nginx SIGTERM. `nil` when `/bin/sh` could not be started.
    private let watchdog: (process: ChildProcess, input: Int32)?
    private let stopped = Lock(false)

    /// Where nginx is, searched on `PATH` and in the `sbin` folders; `nil` when it is not installed.
    package static var executablePath: String? { HarnessProcess.executable(named: "nginx") }

    /// Whether nginx is installed, for tests to skip (with ``installHint``) when it is not.
    package static var isAvailable: Bool { executablePath != nil }

    /// How to install what this type needs.
    package static let installHint = "install Debian's nginx: apt-get install -y nginx-light (or nginx)"

    /// Starts nginx and returns once it accepts connections.
    ///
    /// - Parameters:
    ///   - authority: whose server certificate nginx serves, and whose CA verifies client certificates.
    ///   - http2: whether TLS connections offer HTTP/2 by ALPN (`listen … ssl http2`, nginx 1.22's syntax).
    ///   - requireClientCertificate: `ssl_verify_client on` with the authority's CA: a request without a client
    ///     certificate the CA issued gets nginx's 400.
    ///   - protocols: `ssl_protocols`, such as `TLSv1.2 TLSv1.3` or `TLSv1.2`.
    ///   - extraLocations: nginx configuration inserted in the `server` block, for locations a test needs.
    ///   - startTimeout: how long nginx may take to accept connections.
    /// - Throws: ``TLSHarnessError/toolMissing(tool:installHint:)`` without nginx,
    ///   ``TLSHarnessError/serverFailedToStart(reason:errorLog:)`` with nginx's error log when it exits or does not
    ///   become ready in time, ``TLSHarnessError/fileSystem(operation:path:reason:)``.
    package init(
        authority: TestCertificateAuthority,
        http2: Bool = false,
        requireClientCertificate: Bool = false,
        protocols: String = "TLSv1.2 TLSv1.3",
        extraLocations: String = "",
        startTimeout: Duration = .seconds(20)
    ) throws(TLSHarnessError) {
        guard let executable = Self.executablePath else {
            throw .toolMissing(tool: "nginx", installHint: Self.installHint)
        }
        let clock = ContinuousClock()
        let started = clock.now
        let directory = try TestCertificateAuthority.makePrivateDirectory(prefix: "netkit-nginx")
        do throws(TLSHarnessError) {
            // A copy, so the test may remove the authority's folder while nginx runs.
            let files = Files(directory: directory)
            try TestCertificateAuthority.write(authority.serverCertificatePEM, to: files.certificate)
            try TestCertificateAuthority.write(authority.serverKeyPEM, to: files.key)
            try TestCertificateAuthority.write(authority.caCertificatePEM, to: files.clientCA)
            let settings = Settings(
                http2: http2, requireClientCertificate: requireClientCertificate, protocols: protocols,
                extraLocations: extraLocations)
            let running = try Self.launch(
                executable, files: files, settings: settings, deadline: started + startTimeout)
            process = running.process
            port = running.port
            plainPort = running.plainPort
            processIdentifier = running.process.processIdentifier
            self.directory = directory
            watchdog = Self.startWatchdog(for: running.process.processIdentifier)
            startupDuration = started.duration(to: clock.now)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    deinit {
        stop()
    }

    /// `https://127.0.0.1:<port>`, without a trailing slash.
    package var baseURL: URL {
        // Cannot fail: the string is a literal scheme and host with a decimal port.
        URL(string: "https://127.0.0.1:\(port)")!
    }

    /// `http://127.0.0.1:<plainPort>`, without a trailing slash.
    package var plainBaseURL: URL {
        // Cannot fail: the string is a literal scheme and host with a decimal port.
        URL(string: "http://127.0.0.1:\(plainPort)")!
    }

    /// Whether the nginx process is still running.
    package var isRunning: Bool { process.isRunning }

    /// nginx's error log so far (level `info`: TLS handshake failures are logged there); empty once stopped.
    package var errorLog: String {
        (try? TestCertificateAuthority.read(Files(directory: directory).errorLog)) ?? ""
    }

    /// nginx's access log so far, one line per request: method, URI, protocol, status, TLS version and client
    /// certificate verdict, separated by spaces; empty once stopped.
    package var accessLog: String {
        (try? TestCertificateAuthority.read(Files(directory: directory).accessLog)) ?? ""
    }

    /// Ends nginx (SIGTERM, then SIGKILL after 5 s), waits for it (bounded), and deletes the folder. Idempotent.
    package func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        if let watchdog {
            // First, and with SIGKILL: once nginx is reaped its pid may be reused, and the watchdog must never
            // signal whatever process gets it.
            watchdog.process.send(SIGKILL)
            _ = close(watchdog.input)
        }
        process.stop(grace: .seconds(5))
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - Starting

    /// The files nginx reads and writes, all in its folder.
    private struct Files {
        let directory: URL

        func path(_ name: String) -> String { directory.appending(path: name).path }

        var configuration: String { path("nginx.conf") }
        var certificate: String { path("server.pem") }
        var key: String { path("server.key") }
        var clientCA: String { path("client-ca.pem") }
        var pid: String { path("nginx.pid") }
        var errorLog: String { path("error.log") }
        var accessLog: String { path("access.log") }
        var standardError: String { path("nginx.stderr") }
    }

    /// What the configuration varies in.
    private struct Settings {
        let http2: Bool
        let requireClientCertificate: Bool
        let protocols: String
        let extraLocations: String
    }

    /// A started nginx that accepts connections.
    private struct Running {
        let process: ChildProcess
        let port: Int
        let plainPort: Int
    }

    /// Picks two free ports, starts nginx on them, and waits until it accepts connections; tries again with new
    /// ports when another process took one in between (up to 5 times).
    private static func launch(
        _ executable: String, files: Files, settings: Settings, deadline: ContinuousClock.Instant
    ) throws(TLSHarnessError) -> Running {
        var attempt = 1
        // Each round either returns, throws, or retries after a lost port; the attempt count bounds the retries.
        while true {
            let (port, plainPort) = try freePorts()
            try TestCertificateAuthority.write(
                configuration(files: files, settings: settings, port: port, plainPort: plainPort),
                to: files.configuration)
            // Logs of a failed attempt must not be mistaken for this one's.
            for log in [files.errorLog, files.accessLog, files.pid, files.standardError] {
                try? FileManager.default.removeItem(atPath: log)
            }
            let process = try start(executable, files: files)
            switch waitUntilReady(process, files: files, port: port, deadline: deadline) {
            case .ready:
                return Running(process: process, port: port, plainPort: plainPort)
            case .exited(let status):
                let log = logs(files)
                if log.contains("Address already in use") && attempt < 5 {
                    attempt += 1
                    continue
                }
                throw .serverFailedToStart(reason: "nginx exited with status \(status)", errorLog: log)
            case .timedOut:
                process.stop(grace: .seconds(2))
                throw .serverFailedToStart(
                    reason: "not accepting connections on 127.0.0.1:\(port) in time", errorLog: logs(files))
            }
        }
    }

    /// Two ports the kernel hands out for 127.0.0.1, released for nginx to take.
    ///
    /// Both sockets are bound at once, so the two ports differ. Bound and never listened on, they leave no
    /// TIME_WAIT behind: the ports are free again as soon as they are closed.
    private static func freePorts() throws(TLSHarnessError) -> (Int, Int) {
        do throws(LoopbackServerError) {
            let first = try Socket.bindOnLoopback(listening: nil)
            defer { first.socket.close() }
            let second = try Socket.bindOnLoopback(listening: nil)
            defer { second.socket.close() }
            return (first.port, second.port)
        } catch {
            guard case let .socketFailed(operation, code) = error else {
                throw .socketFailed(operation: "bind", errno: 0)
            }
            throw .socketFailed(operation: operation, errno: code)
        }
    }

    /// The nginx configuration: every path inside the folder, one process, the two listeners and the locations.
    private static func configuration(files: Files, settings: Settings, port: Int, plainPort: Int) -> String {
        func quoted(_ path: String) -> String {
            "\"" + path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                + "\""
        }
        // Tests run as root in CI: nginx then switches workers to `nobody`, which could not enter the 0700 folder.
        // With `master_process off` there are no workers, but `user root` keeps it right if that ever changes.
        let user = geteuid() == 0 ? "user root;" : ""
        let clientVerification =
            settings.requireClientCertificate
            ? "ssl_verify_client on; ssl_client_certificate \(quoted(files.clientCA)); ssl_verify_depth 2;" : ""
        let logFormat = "'$request_method $request_uri $server_protocol $status $ssl_protocol $ssl_client_verify'"
        // `\n` inside a quoted nginx string is a newline in the answer.
        let echoedHeaders = [
            "method: $request_method", "host: $http_host", "user-agent: $http_user_agent",
            "authorization: $http_authorization", "cookie: $http_cookie", "x-test: $http_x_test",
        ].map { $0 + "\\n" }.joined()
        return """
            # Written by NetKit's NginxTLSServer for one test; removed with its folder when the test stops it.
            daemon off;
            master_process off;
            worker_processes 1;
            \(user)
            pid \(quoted(files.pid));
            lock_file \(quoted(files.path("nginx.lock")));
            error_log \(quoted(files.errorLog)) info;
            events { worker_connections 256; }
            http {
                log_format netkit \(logFormat);
                access_log \(quoted(files.accessLog)) netkit;
                client_body_temp_path \(quoted(files.path("client_body")));
                proxy_temp_path \(quoted(files.path("proxy")));
                fastcgi_temp_path \(quoted(files.path("fastcgi")));
                uwsgi_temp_path \(quoted(files.path("uwsgi")));
                scgi_temp_path \(quoted(files.path("scgi")));
                default_type text/plain;
                server_tokens off;
                server {
                    listen 127.0.0.1:\(port) ssl\(settings.http2 ? " http2" : "");
                    listen 127.0.0.1:\(plainPort);
                    server_name localhost 127.0.0.1;
                    ssl_certificate \(quoted(files.certificate));
                    ssl_certificate_key \(quoted(files.key));
                    ssl_protocols \(settings.protocols);
                    \(clientVerification)
                    location = /hello { return 200 "hello"; }
                    location = /protocol { return 200 "$server_protocol"; }
                    location = /tls { return 200 "$ssl_protocol"; }
                    location = /client { return 200 "$ssl_client_verify\\n$ssl_client_s_dn"; }
                    location = /echo-headers { return 200 "\(echoedHeaders)"; }
                    \(settings.extraLocations)
                    location / { return 404 "not found"; }
                }
            }

            """
    }

    /// Starts nginx in the foreground, its standard output and error going to a file in the folder.
    private static func start(_ executable: String, files: Files) throws(TLSHarnessError) -> ChildProcess {
        guard FileManager.default.createFile(atPath: files.standardError, contents: nil) else {
            throw .fileSystem(operation: "create", path: files.standardError, reason: "createFile failed")
        }
        guard let output = FileHandle(forWritingAtPath: files.standardError) else {
            throw .fileSystem(operation: "open", path: files.standardError, reason: "not writable")
        }
        defer { try? output.close() }
        // -e: where nginx logs before it has read `error_log` (otherwise its built-in path, outside the folder).
        return try ChildProcess(
            executable: executable,
            arguments: ["-p", files.directory.path + "/", "-c", files.configuration, "-e", files.errorLog],
            standardOutput: output.fileDescriptor, standardError: output.fileDescriptor)
    }

    private enum Readiness {
        case ready
        case exited(Int32)
        case timedOut
    }

    /// Polls every 20 ms until nginx has written its pid file (it does so only once its listening sockets are
    /// open) and a connection to `port` is accepted; stops early when it exits, and at `deadline`.
    ///
    /// The pid file has to name this process: a connection alone could reach another program that took the port
    /// between ``freePorts()`` and nginx's bind.
    private static func waitUntilReady(
        _ process: ChildProcess, files: Files, port: Int, deadline: ContinuousClock.Instant
    ) -> Readiness {
        let clock = ContinuousClock()
        // Each round waits up to 20 ms (on the exit itself, so an exit ends the wait at once); the deadline
        // bounds the rounds.
        while true {
            if let status = process.exitStatus { return .exited(status) }
            let pid = (try? TestCertificateAuthority.read(files.pid))?.trimmingCharacters(in: .whitespacesAndNewlines)
            if pid == String(process.processIdentifier),
                let socket = try? Socket.connect(toAddress: "127.0.0.1", port: port, timeout: .seconds(2))
            {
                socket.close()
                return .ready
            }
            if clock.now >= deadline { return .timedOut }
            process.waitForExit(timeout: .milliseconds(20))
        }
    }

    /// The error log and standard error of a failed start.
    private static func logs(_ files: Files) -> String {
        let errorLog = (try? TestCertificateAuthority.read(files.errorLog)) ?? ""
        let standardError = (try? TestCertificateAuthority.read(files.standardError)) ?? ""
        return [errorLog, standardError].filter { !$0.isEmpty }.joined(separator: "\n")
    }

    /// Starts `sh`, which sends nginx SIGTERM once its standard input ends: when the test process dies, even
    /// killed, the kernel closes its end of the pipe. `nil` if `sh` cannot be started (nginx then only ends
    /// by ``stop()``).
    ///
    /// The pipe's writing end stays in this process only: it is closed at exec, and every child the harness starts
    /// closes the descriptors it was not given.
    private static func startWatchdog(for pid: Int32) -> (process: ChildProcess, input: Int32)? {
        guard let input = try? HarnessProcess.makePipe() else { return nil }
        defer { _ = close(input.read) }
        guard
            let process = try? ChildProcess(
                executable: "/bin/sh", arguments: ["-c", "read -r _; kill -TERM \(pid)"], standardInput: input.read)
        else {
            _ = close(input.write)
            return nil
        }
        return (process, input.write)
    }
}
