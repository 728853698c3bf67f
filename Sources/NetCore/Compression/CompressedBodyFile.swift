#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The temporary file a compressed body of files or streams is written to, and sent from.
///
/// Made by one `open` call with `O_CREAT | O_EXCL | O_CLOEXEC` and mode 0600, as ``SpillFile`` is: never an existing
/// file or a link planted at its name, readable by this user only from the instant it exists, inherited by no child
/// process. Unlike a spill file it keeps its name until the request ends: a transport opens a file body by its path
/// (``UploadFile``), once per attempt. ``RequestCompressionPlugin`` removes it then; a transfer still reading it
/// keeps its open descriptor.
///
/// Not `Sendable`: the one compression that writes it owns it until ``finish()``.
final class CompressedBodyFile {
    /// The prefix of every such file's name, so that one left by a process that died can be told apart.
    static let namePrefix = "netkit-compressed-body-"

    /// Where the file is.
    let url: URL
    private var descriptor: Int32

    /// Makes a new file in `directory`.
    /// - Throws: ``RequestCompressionError/temporaryFileUnavailable(directory:errno:)``.
    init(in directory: URL) throws(RequestCompressionError) {
        let attempts = 16
        var code = EEXIST
        for _ in 0..<attempts {
            let name = Self.namePrefix + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let url = directory.appending(path: name, directoryHint: .notDirectory)
            let descriptor = open(url.path(percentEncoded: false), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                self.url = url
                self.descriptor = descriptor
                return
            }
            code = errno
            // Taken by another file (or interrupted): another name.
            guard code == EEXIST || code == EINTR else { break }
        }
        throw .temporaryFileUnavailable(directory: directory, errno: code)
    }

    deinit {
        closeDescriptor()
    }

    /// Appends `bytes`.
    /// - Throws: ``RequestCompressionError/temporaryFileWriteFailed(_:errno:)`` (a full disk, say).
    func write(_ bytes: UnsafeRawBufferPointer) throws(RequestCompressionError) {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        // Each round writes at least one byte or fails: at most `bytes.count` rounds.
        while done < bytes.count {
            let count = writeToDescriptor(descriptor, base + done, bytes.count - done)
            if count < 0 {
                if errno == EINTR { continue }
                throw .temporaryFileWriteFailed(url, errno: errno)
            }
            done += count
        }
    }

    /// Closes the file, written whole, and describes it as a body.
    /// - Throws: ``RequestCompressionError/temporaryFileWriteFailed(_:errno:)`` when the last bytes cannot be
    ///   stored, or the ``UploadSourceError`` of a file that is no longer there.
    func finish() throws -> UploadFile {
        let descriptor = self.descriptor
        self.descriptor = -1
        // close(2) reports a write the file system deferred (NFS, a quota); EINTR leaves the descriptor closed.
        if closeFileDescriptor(descriptor) != 0, errno != EINTR {
            throw RequestCompressionError.temporaryFileWriteFailed(url, errno: errno)
        }
        return try UploadFile(url: url)
    }

    /// Closes the file, if open, and removes it: the compression did not finish.
    func discard() {
        closeDescriptor()
        Self.remove(url)
    }

    /// Removes the file at `url`; one already gone is not an error.
    static func remove(_ url: URL) {
        _ = unlink(url.path(percentEncoded: false))
    }

    private func closeDescriptor() {
        guard descriptor >= 0 else { return }
        _ = closeFileDescriptor(descriptor)
        descriptor = -1
    }
}

/// `write(2)`, named apart from ``CompressedBodyFile/write(_:)``, which would shadow it inside the class.
private func writeToDescriptor(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// `close(2)`, named apart from the methods of ``CompressedBodyFile``.
private func closeFileDescriptor(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
