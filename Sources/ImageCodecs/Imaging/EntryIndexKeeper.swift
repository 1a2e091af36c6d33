/// Where complete JPEG entry indexes are kept across restarts (the tile store: on disk, or shared in object
/// storage), so a restarted server or another replica does not scan a master's entropy data again. Names come
/// from `EntryIndexes.keptName`; a keeper that cannot read or write is only a keeper that has nothing.
package protocol EntryIndexKeeper: Sendable {
    func load(_ name: String) -> [UInt8]?
    func save(_ name: String, _ bytes: [UInt8])
    /// Every name kept under the folder `folder`, in one request, or nil when the keeper cannot say cheaply (then
    /// each name is asked for).
    func names(under folder: String) -> Set<String>?
    /// Whether the keeper is in object storage: its listing's round trip then tells how far the store is.
    var isObjectStorage: Bool { get }
}

extension EntryIndexKeeper {
    package func names(under folder: String) -> Set<String>? { nil }
    package var isObjectStorage: Bool { false }
}
