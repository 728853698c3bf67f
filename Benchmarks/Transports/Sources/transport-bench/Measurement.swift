import Foundation

/// Samples of one client in one case, summarised by their median (a shared 2-core machine is noisy).
struct Samples {
    var rates: [Double] = []

    var median: Double {
        let sorted = rates.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// The process's resident set size in MiB (Linux: VmRSS), or nil where unknown.
func residentMiB(_ field: String = "VmRSS") -> Double? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("\(field):") }),
        let kilobytes = Double(line.split(whereSeparator: { $0 == " " || $0 == "\t" })[1])
    else { return nil }
    return kilobytes / 1024
}

func format(_ value: Double, _ digits: Int = 0) -> String {
    let text = String(format: "%.\(digits)f", value)
    guard digits == 0, value >= 10_000 else { return text }
    // Thousands separators for large whole numbers.
    var grouped = ""
    for (index, character) in text.reversed().enumerated() {
        if index > 0 && index % 3 == 0 { grouped.append(",") }
        grouped.append(character)
    }
    return String(grouped.reversed())
}
