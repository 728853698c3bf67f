import CLibFuzzer
import FuzzSupport
import NetStreaming

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a parser fed `chunks` produces: its events, then the error if one ends it, then its last event ID and
/// reconnection time.
func events(of chunks: [Data], limit: Int) -> [String] {
    var parser = ServerSentEventParser(maximumEventSize: limit)
    var out: [String] = []
    func drain() -> Bool {
        do {
            while let event = try parser.nextEvent() { out.append(String(reflecting: event)) }
            return true
        } catch {
            out.append("error: \(error)")
            return false
        }
    }
    for chunk in chunks {
        parser.push(chunk)
        guard drain() else { return out }
    }
    parser.finish()
    if drain() {
        out.append(
            "last ID \(String(describing: parser.lastEventID)), retry \(String(describing: parser.reconnectionTime))")
    }
    return out
}

/// ServerSentEventParser: the events, the error, the last event ID and the retry time must not depend on how the
/// stream is cut into chunks.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerSentEventParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limitByte = input.byte()
    let limit = limitByte >= 0xF0 ? ServerSentEventParser.defaultMaximumEventSize : Int(limitByte) * 4
    let sizes = (0..<3).map { _ in Int(input.byte() % 17) + 1 }
    let payload = input.remainder()
    let whole = events(of: payload.isEmpty ? [] : [Data(payload)], limit: limit)
    let pieces = events(of: chunks(of: payload, sizes: sizes), limit: limit)
    check(whole == pieces, "chunks \(sizes) give \(pieces), one chunk gives \(whole)")
    return 0
}

/// The executable's entry point (SwiftPM links `main` to it): libFuzzer's driver, on this harness.
@_cdecl("fuzz_sse_parser_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    netkit_fuzz_run(argc, argv, fuzzServerSentEventParser)
}
