// A writer for the disk cache's crash test (Tests/NetCoreTests/DiskCacheCrashTests.swift): it stores responses in
// the cache directory it is given, one after another, until it is killed, and prints `stored <path> <version>` once
// each store has returned. The test kills it at random points and checks that every entry it had reported is
// still there, whole, after a new opening.
//
//     netkit-cache-writer <directory> <round> <seed>
//
// Versions grow across rounds (round × 1,000,000 + a counter), so the test can tell a later write from an earlier
// one. The paths are few (`/0` … `/23`), so that writes replace earlier entries; bodies run from a few bytes to
// 256 KiB, so that a kill often lands inside a write; the bound is large enough that nothing is evicted.
import Foundation
import NetCore

struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let round = Int(arguments[2]), let seed = UInt64(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: netkit-cache-writer <directory> <round> <seed>\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[1])
let cache: ResponseCache
do {
    cache = try ResponseCache(directory: directory, maximumBytes: 1 << 30)
} catch {
    FileHandle.standardError.write(Data("netkit-cache-writer: \(error.localizedDescription)\n".utf8))
    exit(1)
}
var random = SplitMix64(state: seed)
let now = Date()
for counter in 0..<1_000_000 {
    let path = "/\(Int.random(in: 0..<24, using: &random))"
    let version = round * 1_000_000 + counter
    let size = [16, 1_000, 40_000, 256_000][Int.random(in: 0..<4, using: &random)]
    let request = try HTTPRequestHead(method: .get, url: URL(string: "https://crash.test" + path)!)
    let head = HTTPResponseHead(
        statusCode: 200,
        headerFields: try HTTPHeaderFields([
            (name: "Cache-Control", value: "max-age=86400"), (name: "X-Version", value: String(version)),
        ]))
    let pattern = Data("\(path) \(version);".utf8)
    var body = Data(capacity: size)
    while body.count < size { body.append(pattern) }
    guard
        let response = CachedResponse(
            head: head, body: body, request: request,
            partition: CredentialPartition(
                request, credentialFields: .standard, transport: TransportIdentity(CrashTestTransport()),
                cookieJar: nil),
            requestTime: now, responseTime: now)
    else { exit(3) }
    if cache.store(response, for: request) {
        // Unbuffered: the test reads each line as it comes.
        FileHandle.standardOutput.write(Data("stored \(path) \(version)\n".utf8))
    }
}

/// The transport type the test's partition names.
struct CrashTestTransport: HTTPTransport {
    func send(_ request: TransportRequest) async throws -> TransportResponse { throw CancellationError() }
}
