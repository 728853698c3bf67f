// The umbrella module: `import NetKit` brings every NetKit module, and EKNetwork's API with them.
@_exported import NetCore
@_exported import NetTransport
@_exported import NetAuth
@_exported import NetMultipart
@_exported import NetStreaming
