// The thread sanitizer's canary that must be caught: two threads add to one counter, one inside `Lock.withLock`, the
// other beside it without the lock. `.ci/thread-sanitizer` fails if the sanitizer does NOT report this program, as
// then the step could not catch a race in NetKit either.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A counter shared wrongly on purpose. `@unchecked Sendable` is the lie this canary exists to be caught telling.
final class Counter: @unchecked Sendable {
    var value = 0
}

enum Shared {
    static let lock = Lock(())
    static let counter = Counter()
}

func start(_ body: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?) -> pthread_t {
    var thread = pthread_t()
    let status = pthread_create(&thread, nil, body, nil)
    precondition(status == 0, "pthread_create failed with error \(status)")
    return thread
}

let locked = start { _ in
    for _ in 0..<10_000 { Shared.lock.withLock { _ in Shared.counter.value += 1 } }
    return nil
}
let unlocked = start { _ in
    for _ in 0..<10_000 { Shared.counter.value += 1 }  // the race: no lock
    return nil
}
pthread_join(locked, nil)
pthread_join(unlocked, nil)
print("racy canary: counter \(Shared.counter.value)")
