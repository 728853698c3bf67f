#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore
import NetStreaming

extension NetworkManager {
    /// Downloads `request`'s body into the file at `destination`, resuming where an earlier attempt stopped: the
    /// manager's settings on ``RequestExecutor/download(_:baseURL:to:options:progress:accessToken:credentials:)``.
    ///
    /// ```swift
    /// let file = try await manager.download(Installer(version: "2.1"), to: destination) { progress in
    ///     print(progress.completedBytes, "of", progress.totalBytes ?? -1)
    /// }
    /// ```
    ///
    /// The bytes go to a partial file beside `destination`, and the file is moved there only once complete and
    /// verified. Cut short (a reset, a cancelled task, a killed process), the download resumes with a `Range`
    /// request when it is started again with the same destination; within one call, as the request's retry policy
    /// allows. A 401 is renewed by ``tokenRefresher`` as on `stream`.
    /// - Throws: ``DownloadError`` for a cut, a full disk, a wrong digest or length; the errors of `stream` for a
    ///   status the server answers with; `CancellationError` when the task is cancelled.
    nonisolated(nonsending) public func download<T: Endpoint>(
        _ request: T,
        to destination: URL,
        options: DownloadOptions = DownloadOptions(),
        progress: ((DownloadProgress) -> Void)? = nil,
        accessToken: (() -> String?)? = nil
    ) async throws -> DownloadedFile {
        let (executor, coordinator) = makeExecutor(streaming: true)
        return try await executor.download(
            request, baseURL: baseURL(), to: destination, options: options, progress: progress,
            accessToken: accessToken, credentials: coordinator)
    }
}
