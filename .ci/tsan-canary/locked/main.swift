// The thread sanitizer's canary that must stay quiet: two threads add to one counter, both inside `Lock.withLock`.
// `.ci/thread-sanitizer` fails if the sanitizer reports this program: it would mean the sanitizer cannot see NetKit's
// lock (as it cannot see `Synchronization.Mutex` on Linux), and every report of the suite would be suspect.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

enum Shared {
    /// The counter, as NetKit keeps shared state: the value inside the lock.
    static let counter = Lock(0)
}

func start(_ body: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?) -> pthread_t {
    var thread = pthread_t()
    let status = pthread_create(&thread, nil, body, nil)
    precondition(status == 0, "pthread_create failed with error \(status)")
    return thread
}

let first = start { _ in
    for _ in 0..<10_000 { Shared.counter.withLock { $0 += 1 } }
    return nil
}
let second = start { _ in
    for _ in 0..<10_000 { Shared.counter.withLock { $0 += 1 } }
    return nil
}
pthread_join(first, nil)
pthread_join(second, nil)
let total = Shared.counter.withLock { $0 }
precondition(total == 20_000, "locked canary: counter \(total), expected 20000")
print("locked canary: counter \(total)")
