import CLibFuzzer
import FuzzSupport
import NetCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

let bases = [
    "https://api.example.com", "https://api.example.com/", "https://api.example.com/v1/", "http://127.0.0.1:8080/a%20b",
    "https://[::1]:8443/base", "https://user@example.com/x?y=1",
].compactMap { URL(string: $0) }

/// RequestURLBuilder: any path, query and query items either build a request target or throw; a target that is
/// built carries no space, control character or fragment, and `validate(path:)` accepts every path that builds.
/// Input: a base index byte, the path, then name/value pairs, fields separated by NUL bytes; a name starting with
/// "&" goes to `queryItems`, the others to `query`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestURL(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let base = bases[Int(input.byte()) % bases.count]
    let path = input.string()
    var query: [String: String] = [:]
    var items: [URLQueryItem] = []
    while !input.rest.isEmpty && query.count + items.count < 16 {
        let name = input.string()
        let value = input.string()
        if name.hasPrefix("&") {
            items.append(URLQueryItem(name: String(name.dropFirst()), value: value.isEmpty ? nil : value))
        } else {
            query[name] = value
        }
    }
    do {
        let head = try RequestURLBuilder.target(
            base: base, path: path, query: query.isEmpty ? nil : query, queryItems: items.isEmpty ? nil : items
        )
        let wire = head.path.utf8
        check(
            !wire.contains { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "#") },
            "target \(head.path) is not wire-safe")
        _ = head.url
        do {
            try RequestURLBuilder.validate(path: path)
        } catch {
            check(false, "path \(path) builds a target but validate(path:) rejects it: \(error)")
        }
    } catch {
        _ = error.localizedDescription
    }
    _ = try? RequestURLBuilder.url(base: base, path: path, query: query, queryItems: items)
    return 0
}

/// The executable's entry point (SwiftPM links `main` to it): libFuzzer's driver, on this harness.
@_cdecl("fuzz_request_url_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    netkit_fuzz_run(argc, argv, fuzzRequestURL)
}
