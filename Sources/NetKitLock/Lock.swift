#if NETKIT_THREAD_SANITIZER
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#else
import Synchronization
#endif

/// A value behind a lock: the one lock NetKit's shared state uses, shaped like `Synchronization.Mutex`.
///
/// Why not `Mutex` itself: on Linux `Mutex` waits on futexes directly, which the thread sanitizer cannot see, so a
/// value that only ever changes inside `Mutex.withLock` is still reported as a "Swift access race" and real races hide
/// among the false ones. In a normal build `Lock` is `Mutex` itself (a type alias: nothing is added); built
/// with `-Xswiftc -DNETKIT_THREAD_SANITIZER` (what `make tsan` and `.ci/thread-sanitizer` pass beside
/// `--sanitize=thread`) it is a `pthread_mutex_t`, which the sanitizer intercepts and so understands. Swift has no
/// compile-time condition for "built with a sanitizer", hence the flag.
///
/// The API is `Mutex`'s, so code moves between the two by name only: `let state = Lock(State())`, then
/// `state.withLock { state in … }`.
#if NETKIT_THREAD_SANITIZER
package struct Lock<Value: ~Copyable>: ~Copyable {
    // Both on the heap: a pthread mutex must not move once initialised, and a noncopyable struct may move.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let value: UnsafeMutablePointer<Value>

    /// A lock holding `initialValue`.
    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "Lock: pthread_mutex_init failed with error \(status)")
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock, and returns what `body` returns.
    @inlinable
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}

// The value is reached only inside `withLock`, which holds the `pthread_mutex_t`, so sharing a `Lock` between threads
// shares the value one holder at a time.
extension Lock: @unchecked Sendable where Value: ~Copyable {}
#else
/// `Mutex` itself in a normal build, not a type around it: a wrapper's generic `withLock`, called from other modules,
/// ran unspecialized in release builds and looked up type metadata on every call, where `Mutex`'s is always inlined.
package typealias Lock<Value: ~Copyable> = Mutex<Value>
#endif
