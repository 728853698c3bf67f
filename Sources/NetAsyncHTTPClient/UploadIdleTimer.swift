#if AsyncHTTPClient
/// Waits until a streamed upload has been idle for a given time: the before-the-head half of
/// `TransportRequest.idleTimeout` for bodies AsyncHTTPClient pulls piece by piece.
enum UploadIdleTimer {
    /// Returns once `lastActivity()` lies `timeout` in the past; throws `CancellationError` when cancelled.
    ///
    /// Each round sleeps until the current activity would be `timeout` old, so it wakes at most once per
    /// `timeout` while the body moves, and returns on the first round that finds no newer activity.
    static func wait(_ timeout: Duration, since lastActivity: @Sendable () -> ContinuousClock.Instant) async throws {
        let clock = ContinuousClock()
        while true {
            let expiry = lastActivity() + timeout
            if clock.now >= expiry { return }
            try await Task.sleep(until: expiry, clock: clock)
        }
    }
}
#endif
