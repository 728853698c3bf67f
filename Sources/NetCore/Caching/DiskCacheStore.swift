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
import NetKitLock

/// A ``ResponseCacheStore`` in a directory: one file per entry (``ResponseCacheEntry/encoded()``), an index of them
/// in memory, least recently used out first, across launches.
///
/// What makes it safe to kill at any moment: an entry is written under a temporary name (`<id>.partial`) and renamed
/// into place once whole, and rename is atomic, so an entry file is either whole or absent; the next opening removes
/// the temporary files left behind. Each file ends in a checksum, so one damaged some other way (a disk error, a
/// power cut before the data reached the disk, a hand edit) is refused when read: skipped, removed, and told to the
/// logger, never used and never a crash.
///
/// The index (``CacheStore``) is rebuilt at opening from the directory listing: names give the keys and identities,
/// sizes count against the bound, modification times give the order (a use touches its file). It is the only state
/// under the lock; files are written, read and removed outside it, so a slow disk holds up no other request.
///
/// One process holds a directory at a time (an exclusive `flock` on its `lock` file, released when the last cache of
/// the directory goes, or when the process ends however it ends); within the process, every cache opened on the
/// directory shares one store.
final class DiskCacheStore: ResponseCacheStore {
    let directory: URL
    let maximumBytes: Int
    private let index: Lock<CacheStore<DiskCacheFile>>
    private let logger: NetworkLogger
    private let directoryPath: String
    /// The last time stamped on a file: stamps only grow, a nanosecond apart at least, since the file system's own
    /// times move in ticks of milliseconds and would leave the order of quick uses to chance.
    private let lastStamp = Lock(timespec(tv_sec: 0, tv_nsec: 0))

    /// The lock file's descriptor, which holds the directory's `flock` for as long as a store of it lives.
    private let lockDescriptor: Int32

    /// The store open in this process on each directory path, with the descriptor that holds the directory's lock.
    private static let registry = Lock([String: Registration]())

    private struct Registration {
        let lockDescriptor: Int32
        weak var store: DiskCacheStore?
    }

    /// The store of `directory`: the one already open in this process, or a new one over what earlier launches
    /// left there.
    static func open(
        directory: URL, maximumBytes: Int, logger: NetworkLogger
    ) throws(ResponseCacheError) -> DiskCacheStore {
        let directory = directory.standardizedFileURL
        let path = directory.path(percentEncoded: false)
        // Under the registry's lock, file I/O included: two caches opened on one directory at once must not both
        // take its lock or scan it. Opening is rare; requests never wait here.
        return try registry.withLock { (stores) throws(ResponseCacheError) -> DiskCacheStore in
            if let store = stores[path]?.store { return store }
            let descriptor: Int32
            if let dying = stores[path] {
                // The last store of the directory is being deinitialised and has not let go of the lock yet: this
                // store takes it over (its deinit then sees a living store registered and leaves it open).
                descriptor = dying.lockDescriptor
            } else {
                descriptor = try Self.lock(directory, logger: logger)
            }
            let store = DiskCacheStore(
                directory: directory, maximumBytes: maximumBytes, logger: logger, lockDescriptor: descriptor)
            stores[path] = Registration(lockDescriptor: descriptor, store: store)
            return store
        }
    }

    private init(directory: URL, maximumBytes: Int, logger: NetworkLogger, lockDescriptor: Int32) {
        self.directory = directory
        self.directoryPath = directory.path(percentEncoded: false)
        self.maximumBytes = max(0, maximumBytes)
        self.logger = logger
        self.lockDescriptor = lockDescriptor
        self.index = Lock(CacheStore(maximumBytes: maximumBytes))
        let found = Self.scan(directoryPath)
        let removed = index.withLock { index in
            found.flatMap { index.insert($0, id: $0.id, key: $0.key, size: $0.size, replacing: []).removed }
        }
        for file in removed { delete(file) }
    }

    deinit {
        let path = directoryPath
        let descriptor = lockDescriptor
        Self.registry.withLock { stores in
            // Unless a new store of the directory took the lock over meanwhile, let it go: another process may now
            // open the directory.
            guard let registration = stores[path], registration.lockDescriptor == descriptor,
                registration.store == nil
            else { return }
            stores[path] = nil
            _ = closeDescriptor(descriptor)
        }
    }

    var currentBytes: Int { index.withLock { $0.currentBytes } }

    var count: Int { index.withLock { $0.count } }

    func entries(forKey key: String) -> [ResponseCacheEntry] {
        let files = index.withLock { $0.items(forKey: key) }
        return files.compactMap { file in
            let entry: ResponseCacheEntry
            do throws(ReadFailure) {
                guard let data = try Self.read(path(of: file), limit: maximumBytes) else {
                    // Removed by hand, or by another call since the index was read: no longer an entry.
                    _ = index.withLock { $0.remove([file.id]) }
                    return nil
                }
                do throws(ResponseCacheError) {
                    entry = try ResponseCacheEntry(encoded: data)
                } catch {
                    guard case .damagedEntry(let reason) = error else { throw .damaged("\(error)") }
                    throw .damaged(reason)
                }
                guard entry.id == file.id, entry.key == file.key else {
                    throw .damaged("its contents belong to another entry")
                }
            } catch {
                // Not used either way, and out of the index; a damaged file goes, one that could not be read (no
                // descriptor left, no permission) stays for a later opening.
                _ = index.withLock { $0.remove([file.id]) }
                switch error {
                case .damaged(let reason):
                    logger.log(
                        .error,
                        "NetKit's response cache skipped the entry \(file.name) in \(directoryPath) and removed it: "
                            + "it is damaged (\(reason))")
                    delete(file)
                case .unreadable(let reason):
                    logger.log(
                        .error,
                        "NetKit's response cache could not read the entry \(file.name) in \(directoryPath) and "
                            + "skipped it (the file stays): \(reason)")
                }
                return nil
            }
            stamp(file)
            return entry
        }
    }

    @discardableResult
    func insert(_ entry: ResponseCacheEntry, replacing replaced: [UUID]) -> Bool {
        let data = entry.encoded()
        let file = DiskCacheFile(id: entry.id, key: entry.key, size: data.count)
        guard data.count <= maximumBytes else {
            remove(replaced, forKey: entry.key)
            return false
        }
        do {
            try write(data, to: file)
        } catch {
            logger.log(.error, "NetKit's response cache could not store an entry in \(directoryPath): \(error)")
            remove(replaced, forKey: entry.key)
            return false
        }
        stamp(file)
        let removed = index.withLock {
            $0.insert(file, id: file.id, key: file.key, size: file.size, replacing: replaced).removed
        }
        for file in removed { delete(file) }
        return true
    }

    func remove(_ ids: [UUID], forKey key: String) {
        for file in index.withLock({ $0.remove(ids) }) { delete(file) }
    }

    func removeAll(forKey key: String) {
        for file in index.withLock({ $0.removeAll(forKey: key) }) { delete(file) }
    }

    func removeAll() {
        for file in index.withLock({ $0.removeAll() }) { delete(file) }
    }

    // MARK: Files

    private func path(of file: DiskCacheFile) -> String {
        directoryPath + "/" + file.name
    }

    /// Makes `file` the most recently used for later openings too, whose order is the files' modification times.
    private func stamp(_ file: DiskCacheFile) {
        var now = timespec()
        _ = clock_gettime(CLOCK_REALTIME, &now)
        var times = lastStamp.withLock { last -> [timespec] in
            if (now.tv_sec, now.tv_nsec) <= (last.tv_sec, last.tv_nsec) {
                now = last
                now.tv_nsec += 1
                if now.tv_nsec >= 1_000_000_000 {
                    now.tv_sec += 1
                    now.tv_nsec = 0
                }
            }
            last = now
            return [now, now]
        }
        _ = utimensat(AT_FDCWD, path(of: file), &times, 0)
    }

    private func delete(_ file: DiskCacheFile) {
        _ = unlink(path(of: file))
    }

    /// Writes `data` whole under a temporary name, then renames it to `file`'s name.
    private func write(_ data: Data, to file: DiskCacheFile) throws(WriteFailure) {
        let partial = directoryPath + "/" + file.id.uuidString + DiskCacheFile.partialSuffix
        let descriptor = posixOpen(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw WriteFailure("cannot create \(partial)", errno) }
        let failure: Int32? = data.withUnsafeBytes { bytes in
            var done = 0
            // Each round writes at least one byte or fails: at most `bytes.count` rounds.
            while done < bytes.count {
                let count = posixWrite(descriptor, bytes.baseAddress! + done, bytes.count - done)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += count
            }
            return nil
        }
        let closed = close(descriptor)
        if let code = failure ?? (closed == 0 ? nil : errno) {
            _ = unlink(partial)
            throw WriteFailure("cannot write \(partial)", code)
        }
        guard rename(partial, path(of: file)) == 0 else {
            let code = errno
            _ = unlink(partial)
            throw WriteFailure("cannot rename \(partial)", code)
        }
    }

    /// Why an entry file was not used.
    private enum ReadFailure: Error {
        /// Its contents are not a whole entry of this store's (`reason`): the file goes.
        case damaged(String)
        /// It could not be read (`reason`: no descriptor left, no permission, an I/O error): the file stays.
        case unreadable(String)
    }

    /// The contents of the file at `path`, or `nil` when there is none.
    /// - Throws: ``ReadFailure/unreadable(_:)`` when it cannot be read, ``ReadFailure/damaged(_:)`` when it is a link
    ///   or holds more than `limit` bytes (no entry this store writes does).
    private static func read(_ path: String, limit: Int) throws(ReadFailure) -> Data? {
        // Never through a link: the directory's entries are regular files this store wrote.
        let descriptor = posixOpen(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP { throw .damaged("it is a link, not a file") }
            throw .unreadable("cannot open \(path): \(describe(code))")
        }
        defer { _ = close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .unreadable("cannot read the size of \(path): \(describe(errno))")
        }
        let size = Int(status.st_size)
        guard size <= limit else { throw .damaged("\(size) bytes, more than the cache's bound") }
        var data = Data(count: size)
        let outcome: Int32? = data.withUnsafeMutableBytes { bytes in
            var done = 0
            while done < size {
                let count = posixRead(descriptor, bytes.baseAddress! + done, size - done)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                // Shorter than its size a moment ago: the checksum will refuse what was read.
                if count == 0 { break }
                done += count
            }
            return nil
        }
        if let code = outcome { throw .unreadable("cannot read \(path): \(describe(code))") }
        return data
    }

    /// Makes `directory` if it is missing and takes its lock, returning the lock file's descriptor. A lock that
    /// reads as held is asked for again for up to a second (``FileLock``), each wait logged at debug level, before
    /// the directory is refused as another process's.
    private static func lock(_ directory: URL, logger: NetworkLogger) throws(ResponseCacheError) -> Int32 {
        let path = directory.path(percentEncoded: false)
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .directoryUnusable(path: path, reason: "it cannot be made (\(error.localizedDescription))")
        }
        let descriptor = posixOpen(path + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .directoryUnusable(path: path, reason: "its lock file cannot be made: \(describe(errno))")
        }
        let refused = FileLock.acquire(descriptor) { attempt in
            logger.log(
                .debug,
                "NetKit's response cache found \(path) locked (attempt \(attempt) of \(FileLock.attempts)); asking "
                    + "again in \(FileLock.retryInterval): a process starting may hold the lock for a moment")
        }
        if let code = refused {
            _ = close(descriptor)
            if code == EWOULDBLOCK { throw .directoryInUse(path: path) }
            throw .directoryUnusable(path: path, reason: "its lock cannot be taken: \(describe(code))")
        }
        return descriptor
    }

    /// The entry files in `path`, oldest used first; temporary files left by a process that ended while writing
    /// are removed.
    private static func scan(_ path: String) -> [DiskCacheFile] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        var found: [(file: DiskCacheFile, modified: timespec)] = []
        for name in names {
            let full = path + "/" + name
            if name.hasSuffix(DiskCacheFile.partialSuffix) {
                _ = unlink(full)
                continue
            }
            var status = stat()
            guard lstat(full, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
                let file = DiskCacheFile(name: name, size: Int(status.st_size))
            else { continue }
            #if canImport(Darwin)
            found.append((file, status.st_mtimespec))
            #else
            found.append((file, status.st_mtim))
            #endif
        }
        found.sort {
            ($0.modified.tv_sec, $0.modified.tv_nsec, $0.file.name)
                < ($1.modified.tv_sec, $1.modified.tv_nsec, $1.file.name)
        }
        return found.map(\.file)
    }

    /// Why an entry could not be written (a full disk, say): the entry is then not stored, and the request it came
    /// with goes on.
    private struct WriteFailure: Error, CustomStringConvertible {
        let description: String

        init(_ what: String, _ code: Int32) {
            description = "\(what): \(describe(code))"
        }
    }
}

/// `close(2)`, by a name the class's members cannot shadow.
private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}

/// `strerror(3)` as text.
private func describe(_ code: Int32) -> String {
    String(cString: strerror(code))
}

// The C calls by names the class's own members cannot shadow.
private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 { open(path, flags, mode) }
private func posixRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
private func posixWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
