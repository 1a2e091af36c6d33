import HTTPTransport
import Library
import ObjectStorage
import Pyramid

/// What the route table hands out when it builds the handlers: each handler keeps the parts it uses.
struct Services: Sendable {
    let options: APIOptions
    let tiles: TileService
    /// The images served, live: listings, folders, ids; the tile service looks images up in it too.
    let library: ImageLibrary
    let metrics: Metrics
    let pools: WorkerPools
    let connections: ConnectionGauge
    let viewer: ViewerFiles
    /// Access control; nil: every image public, no sign-in.
    let access: AccessControl?
    /// The object store `s3://` masters are in; nil when the server has none.
    let objects: RemoteObjects?

    /// `Cache-Control` of tiles whose URL names no version.
    var tileCacheControl: HTTPHeader { HTTPHeader(name: "Cache-Control", value: "public, max-age=\(options.tileMaxAge)") }
}
