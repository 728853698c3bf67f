#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore
import NetKitDigest

extension RequestExecutor {
    /// Downloads `request`'s body into the file at `destination`, resuming where an earlier attempt stopped.
    ///
    /// The body goes to a partial file beside the destination (``DownloadOptions/partialFile``), a piece at a time,
    /// in bounded memory; the file is moved into place, in one rename, only once it is complete (the announced
    /// length) and verified (``DownloadOptions/expectedSHA256``, and the server's SHA-256 `Repr-Digest` or
    /// `Content-Digest`). A half-written file is never at `destination`.
    ///
    /// While it runs the download's ``DownloadResumeState`` is kept beside the partial file, so a download cut short
    /// by anything — a reset, a timeout, a cancelled task, a killed process — continues when it is started again
    /// with the same destination: a `Range` request with `If-Range` asks for the missing bytes only. A 206 appends
    /// them; a 200 (the resource changed, or the server serves no ranges) starts over cleanly; a 416 that names the
    /// length on disk completes the download. Within one call, a transfer that breaks is resumed as the request's
    /// ``Endpoint/retryPolicy`` allows retries, its count starting afresh after every attempt that wrote bytes.
    ///
    /// Each request takes the road of ``stream(_:baseURL:accessToken:credentials:)``: plugins, credentials,
    /// redirects (`Range` and `If-Range` follow a redirect to another origin) and events.
    /// - Parameters:
    ///   - request: The request whose body is the file.
    ///   - baseURL: The URL the request's path is appended to, unless the request names its own `baseURL`.
    ///   - destination: Where the complete file goes; a file already there is replaced. Its directory must exist.
    ///   - options: The partial file, the digest to expect, the state to resume from.
    ///   - progress: Told on the caller's actor after every piece written (a trailing closure goes here).
    ///   - accessToken: Read on the caller's actor before every request.
    ///   - credentials: Renews the credential on 401.
    /// - Returns: The file in place, its length and the digest checked.
    /// - Throws: ``DownloadError`` for a cut the retry policy does not absorb, a full disk, a wrong digest or
    ///   length; the road's errors for a status the server answers with (the request's `errorDecoder` result or
    ///   ``HTTPError``); `CancellationError` when the task is cancelled (the state is then saved). Over a transport
    ///   that cannot stop at once (URLSession on Linux), the bytes it has received by then, and those it still
    ///   receives until it stops, are written to the partial file after the call returns rather than asked for
    ///   again; a later call for the same file waits for them.
    nonisolated(nonsending) public func download<Request: Endpoint>(
        _ request: Request,
        baseURL: URL,
        to destination: URL,
        options: DownloadOptions = DownloadOptions(),
        progress: ((DownloadProgress) -> Void)? = nil,
        accessToken: (() -> String?)? = nil,
        credentials: (any CredentialRecovery)? = nil
    ) async throws -> DownloadedFile {
        var engine = self
        // Failures are judged in NetKit's own words; the caller sees them presented as it asked.
        engine.configuration.presentation = .native
        do {
            return try await engine.runDownload(
                request, baseURL: baseURL, to: destination, options: options, accessToken: accessToken,
                credentials: credentials, progress: progress)
        } catch {
            throw configuration.presentation.present(error)
        }
    }

    nonisolated(nonsending) private func runDownload<Request: Endpoint>(
        _ request: Request,
        baseURL: URL,
        to destination: URL,
        options: DownloadOptions,
        accessToken: (() -> String?)?,
        credentials: (any CredentialRecovery)?,
        progress: ((DownloadProgress) -> Void)?
    ) async throws -> DownloadedFile {
        let partialURL =
            options.resumeState?.partialFile ?? options.partialFile ?? DownloadOptions.partialFile(for: destination)
        let stateURL = DownloadOptions.stateFile(for: partialURL)
        // A call for this file that was cancelled may still be writing what its transport received: that is read first.
        await PendingWrites.settled(partialURL)
        var resumed = options.resumeState ?? DownloadResumeState.saved(at: stateURL)
        resumed?.partialFile = partialURL
        var machine = DownloadStateMachine(state: resumed ?? DownloadResumeState(partialFile: partialURL))
        let file: PartialFile
        do {
            file = try PartialFile(url: partialURL, capacity: options.simulatedDiskCapacity)
        } catch {
            throw Self.downloadError(error, path: partialURL, state: machine.state)
        }
        // Set when a cancelled call hands the file to ``PendingWrites``, which closes it.
        var handedOver = false
        defer { if !handedOver { file.close() } }

        let policy = try await withDefaults { request.retryPolicy }
        let repeatable =
            request.allowsRetry
            && RetryPolicy.allowsRepeating(
                method: HTTPRequestMethod(request.method), declaredIdempotent: request.isIdempotent,
                hasIdempotencyKey: request.headers?.keys.contains { $0.lowercased() == "idempotency-key" } ?? false)
        let wantsDigest = options.expectedSHA256 != nil || options.checksAnnouncedDigests
        // The SHA-256 of the file's first `bytes`, kept while this call writes the file from its first byte, so that
        // checking a digest at the end needs no second pass over the file.
        var running: (hasher: SHA256, bytes: Int64)? = wantsDigest && file.length == 0 ? (SHA256(), 0) : nil
        let clock = ContinuousClock()
        let began = clock.now
        var requests = 0
        var failuresInARow = 0
        var received: Int64 = 0
        var lastHead: HTTPResponseHead?

        /// Keeps the state beside the partial file, for a later call or a relaunch.
        func save() {
            machine.note(bytesOnDisk: file.length)
            machine.state.save(at: stateURL)
        }

        /// What a failed call leaves: the state, or with nothing on disk neither file, so that a download that failed
        /// before its first byte (a 404, a refused connection) leaves nothing behind.
        func keepForLater() {
            if file.length > 0 { save() } else { discard() }
        }

        func discard() {
            try? FileManager.default.removeItem(at: partialURL)
            try? FileManager.default.removeItem(at: stateURL)
        }

        transfer: while true {
            guard requests < options.maximumRequests else {
                keepForLater()
                throw DownloadError.tooManyRequests(limit: options.maximumRequests)
            }
            requests += 1
            let ask = machine.ask(bytesOnDisk: file.length)
            var attempt = self
            attempt.configuration.plugins.append(DownloadRangeHeaders(ask: ask))
            var wrote = false
            // The body being written, when a cancellation leaves what it still delivers to be written after the call.
            var arriving: ResponseBody?
            do {
                let (response, _) = try await attempt.streamingResponse(
                    for: request, baseURL: baseURL, accessToken: accessToken, credentials: credentials)
                lastHead = response.head
                switch try machine.judge(response.head, asked: ask, checksDigests: options.checksAnnouncedDigests) {
                case .complete:
                    break transfer
                case .askAgain:
                    failuresInARow += 1
                    continue transfer
                case .write(let offset, _, let partSHA256):
                    try file.cut(to: offset)
                    if offset == 0, wantsDigest {
                        running = (SHA256(), 0)
                    } else if let bytes = running?.bytes, bytes != offset {
                        running = nil
                    }
                    if options.expectedSHA256 == nil, machine.state.announcedSHA256 == nil { running = nil }
                    save()
                    var part = partSHA256 == nil ? nil : SHA256()
                    arriving = response.body.keepingArrivals()
                    for try await chunk in arriving ?? response.body {
                        // A cancelled task stops at once, not once the transport's buffered chunks are written (a body
                        // that keeps them throws its cancellation itself, and they are written after the call).
                        if arriving == nil { try Task.checkCancellation() }
                        try file.append(chunk)
                        running?.hasher.update(chunk)
                        running?.bytes += Int64(chunk.count)
                        part?.update(chunk)
                        received += Int64(chunk.count)
                        wrote = true
                        if let progress {
                            let seconds = (clock.now - began) / .seconds(1)
                            progress(
                                DownloadProgress(
                                    completedBytes: file.length, totalBytes: machine.state.totalBytes,
                                    receivedBytes: received,
                                    bytesPerSecond: seconds > 0 ? Double(received) / seconds : 0,
                                    resumes: requests - 1))
                        }
                    }
                    arriving = nil
                    if let partSHA256, let actual = part?.finalize(), actual != partSHA256 {
                        try file.cut(to: offset)
                        running = nil
                        // Kept for later by the `DownloadError` catch below.
                        throw DownloadError.checksumMismatch(
                            source: "Content-Digest", expected: SHA256.hex(partSHA256), actual: SHA256.hex(actual))
                    }
                    if try machine.isComplete(bytesOnDisk: file.length) { break transfer }
                    // A shorter part than asked for, or a body that ended early without an error: ask for the rest.
                    failuresInARow = wrote ? 0 : failuresInARow + 1
                }
            } catch let error as HTTPError where error.statusCode == 416 {
                switch machine.judgeUnsatisfiable(contentRange: error.value(forHeader: "Content-Range"), asked: ask) {
                case .complete:
                    lastHead = HTTPResponseHead(
                        statusCode: 416, headerFields: (try? HTTPHeaderFields(error.headers)) ?? HTTPHeaderFields())
                    break transfer
                default:
                    failuresInARow += 1
                }
            } catch let failure as PartialFile.Failure {
                keepForLater()
                throw Self.downloadError(failure, path: partialURL, state: machine.state)
            } catch let error as DownloadError {
                keepForLater()
                throw error
            } catch {
                if error is CancellationError || Task.isCancelled {
                    if let arriving {
                        // The transfer is stopping: what it received and still receives is written after the call.
                        save()
                        handedOver = true
                        PendingWrites.finish(
                            arriving, into: PendingWrites.HandedOver(file: file), state: machine.state,
                            stateURL: stateURL)
                    } else {
                        keepForLater()
                    }
                    throw error
                }
                if wrote, Self.isBufferOverrun(error) {
                    // The transport's buffer for a consumer that fell behind gave out (URLSession on Linux when the
                    // network outruns the disk its spill file shares with the download): what was written is good, so
                    // the download goes on from there at once, whatever the retry policy. Each such resume made
                    // progress, and `maximumRequests` bounds them.
                    save()
                    failuresInARow = 0
                    continue transfer
                }
                failuresInARow = wrote ? 1 : failuresInARow + 1
                guard repeatable, let delay = policy.delay(beforeRetry: failuresInARow, after: error) else {
                    keepForLater()
                    // A transfer that broke can be resumed; a status the server chose is its own answer.
                    guard wrote || error is any TransportErrorConvertible else { throw error }
                    throw DownloadError.interrupted(resumeState: machine.state, underlying: error)
                }
                // The state on disk while the call waits: a process killed now still resumes.
                if file.length > 0 { save() }
                do {
                    try await configuration.clock.sleep(for: .seconds(delay))
                } catch {
                    keepForLater()
                    throw error
                }
            }
        }

        do {
            let expected = options.expectedSHA256?.lowercased()
            let announced = machine.state.announcedSHA256
            var sha256: String?
            if expected != nil || announced != nil {
                let digest =
                    if let running, running.bytes == file.length { running.hasher.finalize() } else {
                        try file.sha256()
                    }
                let actual = SHA256.hex(digest)
                sha256 = actual
                for (source, value) in [("DownloadOptions.expectedSHA256", expected), ("Repr-Digest", announced)] {
                    guard let value, value != actual else { continue }
                    discard()
                    throw DownloadError.checksumMismatch(source: source, expected: value, actual: actual)
                }
            }
            try file.sync()
            let byteCount = file.length
            try file.move(to: destination)
            try? FileManager.default.removeItem(at: stateURL)
            return DownloadedFile(
                url: destination, byteCount: byteCount, sha256: sha256,
                head: lastHead ?? HTTPResponseHead(statusCode: 200),
                resumes: requests - 1)
        } catch let failure as PartialFile.Failure {
            keepForLater()
            throw Self.downloadError(failure, path: partialURL, state: machine.state)
        }
    }

    /// Whether `error` says the transport's buffer for a slow consumer gave out (its spill file failed or filled),
    /// rather than anything about the server or the connection.
    private static func isBufferOverrun(_ error: any Error) -> Bool {
        switch error {
        case let error as ResponseBodyError: error.kind == .spillFailed
        case StreamingError.bufferLimitExceeded: true
        default: false
        }
    }

    /// The ``DownloadError`` of a failed file operation on `path`.
    private static func downloadError(_ failure: PartialFile.Failure, path: URL, state: DownloadResumeState)
        -> DownloadError
    {
        switch failure {
        case .full: .diskFull(path: path.path(percentEncoded: false), resumeState: state)
        case let .failed(operation, reason):
            .fileSystem(path: path.path(percentEncoded: false), operation: operation, reason: reason)
        }
    }
}
