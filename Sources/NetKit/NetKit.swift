// The umbrella module: `import NetKit` brings every NetKit module, and EKNetwork's API with them. Foundation (and,
// on Linux, FoundationNetworking, where URLRequest, URLResponse and HTTPURLResponse live) come along, so that code
// written against EKNetwork needs no other import.
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
@_exported import NetCore
@_exported import NetTransport
@_exported import NetAuth
@_exported import NetMultipart
@_exported import NetStreaming
