#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one place a successful body becomes a request's `Response` by its kind: `Endpoint`'s default `decode` and
/// `NetworkRequest`'s default `decodeResponse` (and its fast path) both call it, so the kinds mean the same on
/// NetCore alone and through EKNetwork's facade.
///
/// | `Response` | the value | an empty body |
/// | --- | --- | --- |
/// | `Data` | the body's bytes | `Data()` |
/// | `String` | the body as text in the `Content-Type`'s charset, UTF-8 when it names none | `""` |
/// | `ImageResponse` (Apple platforms) | the body's bytes, checked to be an image | ``ResponseDecodingError/notAnImage(contentType:)`` |
/// | ``JSONValue``, any other `Decodable` | decoded from JSON by the decoder | ``NetworkError/emptyResponse`` |
///
/// With a `responseKeyPath`, the body is JSON whatever the kind: `Response` is decoded by the decoder from the value
/// at that path (a `String` is a JSON string there, `Data` follows the decoder's `dataDecodingStrategy`, base64 by
/// default), and an empty body is ``NetworkError/emptyResponse``. ``EmptyResponse`` and ``StatusCodeResponse`` are
/// decoded by their own defaults, before this is reached.
package enum ResponseDecoding {
    /// Decodes `type` from a successful response's `body`.
    /// - Parameters:
    ///   - contentType: The response's `Content-Type`, read only for a `String` or an image.
    ///   - keyPath: The request's `responseKeyPath`; `nil` or empty: the whole body.
    ///   - decoder: The JSON decoder (the request's, or the engine's global one), made only for JSON.
    package static func decode<Value: Decodable>(
        _ type: Value.Type,
        body: Data?,
        contentType: @autoclosure () -> String?,
        keyPath: [String]?,
        decoder: @autoclosure () -> JSONDecoder
    ) throws -> Value {
        if let keyPath, !keyPath.isEmpty {
            guard let body, !body.isEmpty else { throw NetworkError.emptyResponse }
            return try ResponseKeyPath.decode(Value.self, from: body, path: keyPath, decoder: decoder())
        }
        // Each `as!` below converts a value to its own type: the comparison above it proved `Value` is that type.
        if Value.self == Data.self { return (body ?? Data()) as! Value }
        if Value.self == String.self {
            return try ResponseText.decode(body ?? Data(), contentType: contentType()) as! Value
        }
        #if canImport(UIKit) || canImport(AppKit)
        if Value.self == ImageResponse.self {
            let type = contentType()
            return try ImageResponse(data: body ?? Data(), contentType: type) as! Value
        }
        #endif
        guard let body, !body.isEmpty else { throw NetworkError.emptyResponse }
        return try decoder().decode(Value.self, from: body)
    }

    /// Decodes `type` from `response`'s body: ``decode(_:body:contentType:keyPath:decoder:)`` with its
    /// `Content-Type`.
    package static func decode<Value: Decodable>(
        _ type: Value.Type,
        from response: ReceivedResponse,
        keyPath: [String]?,
        decoder: @autoclosure () -> JSONDecoder
    ) throws -> Value {
        try decode(
            type, body: response.body, contentType: response.head.headerFields.value(for: "Content-Type"),
            keyPath: keyPath, decoder: decoder())
    }
}
