import CLibFuzzer
import FuzzSupport
import NetStreaming

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every line (and the error, if any) that `splitter` gives for `chunks`, pushing each chunk and draining after it.
func lines(of chunks: [Data], limit: Int) -> [String] {
    var splitter = LineSplitter(maximumLineLength: limit)
    var out: [String] = []
    func drain() -> Bool {
        do {
            while let line = try splitter.nextLineData() { out.append(String(decoding: line, as: UTF8.self)) }
            return true
        } catch {
            out.append("error: \(error)")
            return false
        }
    }
    for chunk in chunks {
        splitter.push(chunk)
        guard drain() else { return out }
    }
    splitter.finish()
    _ = drain()
    return out
}

/// LineSplitter: the lines and the error must not depend on how the stream is cut into chunks.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLineSplitter(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limitByte = input.byte()
    let limit = limitByte >= 0xF0 ? LineSplitter.defaultMaximumLineLength : Int(limitByte)
    let sizes = (0..<3).map { _ in Int(input.byte() % 17) + 1 }
    let payload = input.remainder()
    let whole = lines(of: payload.isEmpty ? [] : [Data(payload)], limit: limit)
    let pieces = lines(of: chunks(of: payload, sizes: sizes), limit: limit)
    check(whole == pieces, "chunks \(sizes) give \(pieces), one chunk gives \(whole)")
    return 0
}

/// The executable's entry point (SwiftPM links `main` to it): libFuzzer's driver, on this harness.
@_cdecl("fuzz_line_splitter_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    netkit_fuzz_run(argc, argv, fuzzLineSplitter)
}
