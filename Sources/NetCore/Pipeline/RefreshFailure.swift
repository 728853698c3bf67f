/// A credential renewal that failed: the caller receives `underlying` as it is, and it is never retried.
package struct RefreshFailure: Error {
    package let underlying: any Error
}
