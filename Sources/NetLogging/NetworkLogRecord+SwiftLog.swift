#if Logging
import Logging
import NetCore

extension NetworkLogRecord {
    /// The record's fields as swift-log metadata, under the keys `NetworkLogger(swiftLog:)`
    /// lists (OpenTelemetry's names where they exist, `netkit.` ones for the rest); a field the record lacks is left
    /// out.
    public var swiftLogMetadata: Logger.Metadata {
        var metadata: Logger.Metadata = ["netkit.event": .string(event.rawValue)]
        if let method { metadata["http.request.method"] = .string(method.rawValue) }
        if let url { metadata["url.full"] = .string(url) }
        if let statusCode { metadata["http.response.status_code"] = .stringConvertible(statusCode) }
        if let attempt { metadata["netkit.attempt"] = .stringConvertible(attempt) }
        if let duration { metadata["netkit.duration_ms"] = .stringConvertible(Self.milliseconds(duration)) }
        if let requestNumber { metadata["netkit.request_number"] = .stringConvertible(requestNumber) }
        if let requestID { metadata["netkit.request_id"] = .string(requestID) }
        if let operationID { metadata["netkit.operation_id"] = .string(operationID) }
        if let error { metadata["netkit.error"] = .string(error) }
        if !cacheEvents.isEmpty {
            metadata["netkit.cache_events"] = .array(cacheEvents.map { .string($0.description) })
        }
        return metadata
    }

    /// `duration` in milliseconds, to the tenth.
    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return ((Double(seconds) * 1000 + Double(attoseconds) / 1e15) * 10).rounded() / 10
    }
}
#endif
