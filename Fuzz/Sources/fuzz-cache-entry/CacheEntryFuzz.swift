import CLibFuzzer
import FuzzSupport
import NetCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ResponseCacheEntry(encoded:): bytes a disk or a user's store gives back are read without a crash, whatever they
/// hold, and an entry read back is the entry it encodes again:
/// - bytes refused throw `ResponseCacheError.damagedEntry`, never anything else;
/// - an entry read re-encodes to bytes that read back with the same identity, key, status, fields, body, URL,
///   receipt time and size.
///
/// Input: the bytes between an entry's header (magic and version, which the harness writes) and its checksum (which
/// the harness computes), so that the fuzzer reaches the lengths and fields behind the checksum; the seed corpus is
/// a real entry's such bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size).rest
    var bytes: [UInt8] = Array("NKCE".utf8) + [1, 0, 0, 0] + input
    let checksum = crc32(bytes)
    for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: checksum >> UInt32(shift))) }
    let entry: ResponseCacheEntry
    do throws(ResponseCacheError) {
        entry = try ResponseCacheEntry(encoded: Data(bytes))
    } catch {
        guard case .damagedEntry(let reason) = error else {
            check(false, "refused as \(error)")
            return 0
        }
        check(!reason.isEmpty, "refused without a reason")
        return 0
    }
    do {
        let again = try ResponseCacheEntry(encoded: entry.encoded())
        check(again.id == entry.id && again.key == entry.key, "identity or key changed")
        check(again.byteCount == entry.byteCount, "size \(entry.byteCount) became \(again.byteCount)")
        check(again.receivedAt == entry.receivedAt, "receipt time changed")
    } catch {
        check(false, "an entry read back did not read again: \(error)")
    }
    return 0
}

/// CRC-32 (ISO-HDLC), as the entry's last four bytes hold it (little-endian).
func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

/// The executable's entry point (SwiftPM links `main` to it): libFuzzer's driver, on this harness.
@_cdecl("fuzz_cache_entry_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    netkit_fuzz_run(argc, argv, fuzzCacheEntry)
}
