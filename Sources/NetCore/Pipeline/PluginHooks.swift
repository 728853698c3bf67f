/// The hooks a plugin takes part in.
///
/// Every hook call is an async call through an existential, made per request (and per attempt) whether the plugin
/// does anything in it or not: for a plugin that does nothing in most of them, such as the logging every
/// `NetworkManager` runs, those empty calls are a good part of what the engine costs. NetKit's own plugins say
/// which hooks they need (``SelectivePlugin``); any other plugin takes part in all of them.
package struct PluginHooks: OptionSet, Sendable {
    package let rawValue: UInt8

    package init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    package static let prepare = PluginHooks(rawValue: 1 << 0)
    package static let willSend = PluginHooks(rawValue: 1 << 1)
    package static let didReceive = PluginHooks(rawValue: 1 << 2)
    package static let verify = PluginHooks(rawValue: 1 << 3)
    /// `didFinish` with a success.
    package static let didSucceed = PluginHooks(rawValue: 1 << 4)
    /// `didFinish` with a failure.
    package static let didFail = PluginHooks(rawValue: 1 << 5)
    package static let wasCancelled = PluginHooks(rawValue: 1 << 6)
    /// `observe`, for a ``RequestObserver``: a request none of whose plugins takes it makes no events.
    package static let observe = PluginHooks(rawValue: 1 << 7)

    package static let all: PluginHooks = [
        .prepare, .willSend, .didReceive, .verify, .didSucceed, .didFail, .wasCancelled, .observe,
    ]
}

/// A plugin of NetKit's own that says which hooks it needs; the engine calls no other.
package protocol SelectivePlugin: Plugin {
    /// The hooks that may do something. A value, fixed for the plugin's life.
    var hooks: PluginHooks { get }
}

/// The plugins of one request in the order their hooks run, each with the hooks it takes part in.
package struct PluginList: Sendable {
    /// What the list holds besides ``union``, in one object: a list is copied into every stage that runs plugins,
    /// and each copy then retains one reference rather than one per array.
    private final class Storage: Sendable {
        let plugins: [any Plugin]
        let hooks: [PluginHooks]
        let credentialFields: CredentialFields
        let observers: [any RequestObserver]

        init(plugins: [any Plugin], hooks: [PluginHooks], credentialFields: CredentialFields) {
            self.plugins = plugins
            self.hooks = hooks
            self.credentialFields = credentialFields
            self.observers = plugins.indices.compactMap { index in
                hooks[index].contains(.observe) ? plugins[index] as? any RequestObserver : nil
            }
        }
    }

    private let storage: Storage
    /// Every hook some plugin takes part in.
    package let union: PluginHooks

    /// The plugins, higher priority first.
    package var plugins: [any Plugin] { storage.plugins }
    /// The credential fields the plugins declare, together.
    package var credentialFields: CredentialFields { storage.credentialFields }
    /// The plugins told every event of the request, in order.
    package var observers: [any RequestObserver] { storage.observers }

    /// No plugins.
    package static let empty = PluginList(ordered: [])

    /// `plugins`, already in order.
    package init(ordered plugins: [any Plugin]) {
        var union: PluginHooks = []
        let hooks = plugins.map { plugin in
            let hooks = (plugin as? any SelectivePlugin)?.hooks ?? .all
            union.formUnion(hooks)
            return hooks
        }
        self.union = union
        self.storage = Storage(
            plugins: plugins, hooks: hooks,
            credentialFields: plugins.reduce(into: CredentialFields.none) { $0.formUnion($1.credentialFields) })
    }

    /// Whether some plugin takes part in `hook`.
    package func any(_ hook: PluginHooks) -> Bool {
        union.contains(hook)
    }

    /// The hooks of the plugin at `index` in ``plugins``.
    package func hooks(at index: Int) -> PluginHooks {
        storage.hooks[index]
    }

    /// The plugins that take part in `hook`, in order.
    package func taking(_ hook: PluginHooks) -> some Sequence<any Plugin> {
        let plugins = storage.plugins
        let hooks = storage.hooks
        return plugins.indices.lazy.filter { hooks[$0].contains(hook) }.map { plugins[$0] }
    }
}
