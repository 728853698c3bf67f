import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// User plus system CPU time this process has used so far.
func processCPUSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    let who = __rusage_who_t(RUSAGE_SELF.rawValue)
    #else
    let who = RUSAGE_SELF
    #endif
    guard getrusage(who, &usage) == 0 else { return 0 }
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// The process's peak resident set size in MiB (Linux: VmHWM), or nil where unknown.
func peakResidentMiB() -> Double? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Double(line.split(whereSeparator: { $0 == " " || $0 == "\t" })[1])
    else { return nil }
    return kilobytes / 1024
}
