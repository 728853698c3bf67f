/// Marks an error that the default ``RetryPolicy`` never retries.
///
/// Conform business-level or user-presentable errors (for example the value an `errorDecoder` returns) to it:
///
/// ```swift
/// struct APIError: Decodable, NonRetriableError { let message: String }
/// ```
public protocol NonRetriableError: Error {}
