#if os(Linux)
import Foundation
import Glibc

/// The test process's resident memory, read from `/proc/self/status`, with its peak reset so that one test measures
/// its own.
enum ProcessMemory {
    /// A field of `/proc/self/status` in KiB (`VmRSS`, `VmHWM`); 0 when it cannot be read.
    static func kibibytes(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    /// Gives memory freed earlier back to the system (glibc's `malloc_trim`, when there is one) and resets the peak
    /// (`VmHWM`) to what is resident now (`/proc/self/clear_refs`, Linux 4.0+); returns the resident KiB.
    ///
    /// Without the trim, memory an earlier test freed would be reused without showing as growth.
    static func resetPeak() -> Int {
        if let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") {
            let trim = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
            _ = trim(0)
        }
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        return kibibytes("VmRSS")
    }

    /// How far the peak rose above `base` KiB, in MiB.
    static func peakGrowthMiB(since base: Int) -> Int {
        (kibibytes("VmHWM") - base) / 1024
    }
}
#endif
