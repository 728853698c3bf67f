#if canImport(UIKit) || canImport(AppKit)
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(UIKit)
import UIKit
#else
import AppKit
#endif

/// An image answer (`image/png`, `image/jpeg`, …) as a response kind, on Apple platforms.
///
/// `UIImage` and `NSImage` are not `Decodable`, so a request names this wrapper as its `Response`; the body's bytes
/// are checked to be an image the platform can decode when the response arrives (or the request fails with
/// ``ResponseDecodingError/notAnImage(contentType:)``), and ``image`` makes the platform image from them.
///
/// ```swift
/// struct Avatar: Endpoint {
///     typealias Response = ImageResponse
///     let id: Int
///     var path: String { "/users/\(id)/avatar" }
///     var method: HTTPMethod { .get }
/// }
/// let avatar = try await executor.send(Avatar(id: 42), baseURL: api).image
/// ```
///
/// It keeps the bytes rather than the image: `NSImage` is neither immutable nor `Sendable`, and each caller of
/// ``image`` gets an image of its own.
public struct ImageResponse: Decodable, Sendable, Equatable {
    #if canImport(UIKit)
    /// The platform's image type.
    public typealias PlatformImage = UIImage
    #else
    /// The platform's image type.
    public typealias PlatformImage = NSImage
    #endif

    /// The body's bytes.
    public let data: Data
    /// The response's `Content-Type`, if it sent one.
    public let contentType: String?

    /// Checks that `data` is an image the platform can decode.
    /// - Throws: ``ResponseDecodingError/notAnImage(contentType:)``.
    public init(data: Data, contentType: String? = nil) throws {
        guard !data.isEmpty, PlatformImage(data: data) != nil else {
            throw ResponseDecodingError.notAnImage(contentType: contentType)
        }
        self.data = data
        self.contentType = contentType
    }

    /// A new platform image made from ``data``.
    public var image: PlatformImage {
        PlatformImage(data: data) ?? PlatformImage()
    }

    /// Always throws: an image is the body's bytes, not JSON. A request whose `Response` is `ImageResponse` is
    /// decoded from the bytes by NetKit's default decoding; at a `responseKeyPath` or inside a JSON type it fails.
    public init(from decoder: any Decoder) throws {
        throw ResponseDecodingError.notJSONDecodable(type: "ImageResponse")
    }
}
#endif
