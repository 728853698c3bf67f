/// How far a download has come, told after every piece written.
public struct DownloadProgress: Sendable, Equatable {
    /// The bytes of the resource on disk: those of earlier runs and resumes plus this one's. Each byte counts once;
    /// it falls back to 0 only when the server sends the whole resource again (the resource changed, or it serves no
    /// ranges).
    public var completedBytes: Int64
    /// The resource's whole length, when the server said it.
    public var totalBytes: Int64?
    /// The body bytes received by this call, over every request it made.
    public var receivedBytes: Int64
    /// ``receivedBytes`` per second since this call began.
    public var bytesPerSecond: Double
    /// The requests this call made after its first: resumes and restarts.
    public var resumes: Int

    /// Creates a progress value.
    public init(
        completedBytes: Int64, totalBytes: Int64?, receivedBytes: Int64, bytesPerSecond: Double, resumes: Int
    ) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.receivedBytes = receivedBytes
        self.bytesPerSecond = bytesPerSecond
        self.resumes = resumes
    }

    /// ``completedBytes`` over ``totalBytes`` in `0...1`; `nil` while the length is unknown.
    public var fractionCompleted: Double? {
        guard let totalBytes, totalBytes > 0 else { return totalBytes == 0 ? 1 : nil }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }
}
