extension RequestMetrics: CustomStringConvertible {
    /// One line a log or a `print` can carry: `182.4 ms, head after 95.1 ms, 2 attempts (waited 100.0 ms), 0 B sent,
    /// 1.2 KiB received`; `running` while the request has not ended; with the cache's events when there are any
    /// (`…, 0 B received, cache: miss, stored`).
    public var description: String {
        var parts = [end == nil ? "running for \(Self.text(duration))" : Self.text(duration)]
        if let head = timeToResponseHead { parts.append("head after \(Self.text(head))") }
        var attempts = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
        if !retryWaits.isEmpty { attempts += " (waited \(Self.text(totalRetryWait)))" }
        parts.append(attempts)
        parts.append("\(Self.text(bytes: bytesSent)) sent")
        parts.append("\(Self.text(bytes: bytesReceived)) received")
        if !cacheEvents.isEmpty { parts.append("cache: " + cacheEvents.map(\.description).joined(separator: ", ")) }
        return parts.joined(separator: ", ")
    }

    /// Milliseconds with one decimal under 10 s, seconds with two above.
    private static func text(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        if milliseconds < 10_000 {
            let tenths = Int((milliseconds * 10).rounded())
            return "\(tenths / 10).\(abs(tenths % 10)) ms"
        }
        let hundredths = Int((milliseconds / 10).rounded())
        return "\(hundredths / 100).\(String(hundredths % 100 + 100).dropFirst()) s"
    }

    /// Bytes, KiB, MiB or GiB, with one decimal above bytes.
    private static func text(bytes: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        guard bytes >= 1024 else { return "\(bytes) B" }
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
