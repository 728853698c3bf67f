extension Duration {
    /// This duration as a `poll()` timeout: whole milliseconds rounded up (so a short wait never
    /// becomes a busy zero-timeout poll), clamped to what `poll()` accepts, and never negative.
    var pollMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 || seconds > 0 else { return 0 }
        let total = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return Int32(min(total.rounded(.up), Double(Int32.max)))
    }
}
