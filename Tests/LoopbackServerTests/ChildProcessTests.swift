import Foundation
import LoopbackServer
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The harness's child processes: started whatever the test process holds, given only their three streams, with
/// no signal blocked or ignored, and reaped with the status they ended with.
///
/// Each test spawns from a thread of its own (``onDedicatedThread(_:)``), since the waits block.
@Suite("Child processes of the harness")
struct ChildProcessTests {
    @Test("A child started while this process holds 1,500 more descriptors gets none of them")
    func manyDescriptors() async throws {
        let listing = try await onDedicatedThread { () throws -> [String] in
            // Not closed at exec, on purpose: only the spawn's own closing keeps them out of the child. Foundation's
            // `Process.run()` crashed (a read past glibc's directory buffer) listing this many.
            var opened: [Int32] = []
            defer { for descriptor in opened { close(descriptor) } }
            for _ in 0..<1_500 {
                let descriptor = open("/dev/null", O_RDONLY)
                guard descriptor >= 0 else { break }
                opened.append(descriptor)
            }
            let result = try HarnessProcess.run("/bin/ls", ["-1", "/proc/self/fd"])
            #expect(result.succeeded, "ls failed: \(result.errorText)")
            return result.outputText.split(separator: "\n").map(String.init)
        }
        // 0, 1 and 2, and the descriptor ls opened to list the folder.
        #expect(listing.compactMap { Int($0) }.allSatisfy { $0 <= 3 }, "the child holds \(listing)")
        #expect(listing.count <= 4, "the child holds \(listing)")
    }

    @Test("Spawned from a thread that blocks SIGTERM, a child blocks and ignores no standard signal; SIGTERM ends it")
    func signalsAtTheirDefaults() async throws {
        let (masks, stopped) = try await onDedicatedThread { () throws -> (String, Int32?) in
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGTERM)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            let masks = try HarnessProcess.run("/bin/grep", ["-E", "^Sig(Blk|Ign)", "/proc/self/status"])
            let sleeper = try ChildProcess(executable: "/bin/sleep", arguments: ["60"])
            sleeper.send(SIGTERM)
            return (masks.outputText, sleeper.waitForExit(timeout: .seconds(30)))
        }
        // The standard signals, 1 to 31 (bit n - 1 for signal n); glibc keeps its internal real-time ones as they are.
        let standard = masks.split(separator: "\n").map { line in
            UInt64(line.split(separator: "\t").last ?? "", radix: 16).map { $0 & 0x7fff_ffff }
        }
        #expect(standard == [0, 0], "the child's masks: \(masks)")
        #expect(stopped == -SIGTERM)
    }

    @Test("The exit status, minus the signal that ended a child, and nil while it runs")
    func exitStatus() async throws {
        let (exited, running, killed, signalledAfterReaping) = try await onDedicatedThread {
            () throws -> (Int32?, Bool, Int32?, Bool) in
            let exited = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "exit 3"])
            let sleeper = try ChildProcess(executable: "/bin/sleep", arguments: ["60"])
            let running = sleeper.isRunning && sleeper.exitStatus == nil
            sleeper.stop(grace: .seconds(30))
            let status = exited.waitForExit(timeout: .seconds(30))
            // Reaped: a signal now must not be sent at all (the pid may be another process's).
            sleeper.send(SIGKILL)
            return (status, running, sleeper.exitStatus, !sleeper.isRunning)
        }
        #expect(exited == 3)
        #expect(running)
        #expect(killed == -SIGTERM)
        #expect(signalledAfterReaping)
    }

    @Test("A program that is not there is a typed error naming it")
    func missingProgram() {
        #expect(throws: TLSHarnessError.self) {
            try ChildProcess(executable: "/nonexistent/netkit-no-such-program", arguments: [])
        }
    }
}
