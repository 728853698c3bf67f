import Foundation

/// Wall-clock samples of one case, summarised by median (2-core machines are noisy: no single times).
struct Measurement {
    let name: String
    var samples: [Duration] = []

    var median: Duration {
        let sorted = samples.sorted()
        return sorted[sorted.count / 2]
    }

    var p90: Duration {
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

func format(_ value: Double, _ digits: Int = 2) -> String {
    String(format: "%.\(digits)f", value)
}
