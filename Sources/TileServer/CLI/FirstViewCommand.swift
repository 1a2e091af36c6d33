import ArgumentParser
import Dispatch
import POSIXSupport
import Pyramid
import TileAPI

#if canImport(Glibc)
import Glibc
import TileGeometry
#endif

/// `tileserver first-view IMAGE`: on a cold server state, times how long the tiles of a fitted viewport take,
/// and separately the bottom-right full-resolution tile. For bench/first-view.sh.
struct FirstViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "first-view",
        abstract: "Time the first fitted view of an image, or its bottom-right full-resolution tile, from a cold start."
    )

    @Argument(help: "A JPEG or PNG file.")
    var image: String

    @Option(help: "Viewport width in screen pixels.")
    var width: Int = 1280

    @Option(help: "Viewport height in screen pixels.")
    var height: Int = 800

    @Flag(help: "Time the bottom-right tile of the full-resolution level instead of the fitted view.")
    var bottomRight = false

    @Option(help: "Directory for decode passes.")
    var rasterDirectory: String = "/var/tmp"

    func run() throws {
        let files = ObjectStorageSetup.files(ObjectStorageSetup.make(for: [image]))
        try reportingFailure {
            let started = MonotonicClock.seconds()
            let options = TileOptions(rasterDirectory: rasterDirectory, files: files)
            let image = try PyramidImage(id: "image", path: self.image, options: options)
            let service = TileService(images: [image], options: options)
            let geometry = try image.current().geometry
            let tiles: [TileCoordinate]
            if bottomRight {
                let (c, r) = geometry.tileCount(geometry.maxLevel)
                tiles = [TileCoordinate(level: geometry.maxLevel, x: c - 1, y: r - 1)]
            } else {
                let model = try ScrollViewModel(geometry: geometry, viewWidth: Double(width), viewHeight: Double(height))
                tiles = model.layout(zoom: .fit).tiles.map(\.tile)
            }
            let failure = Locked<String?>(nil)
            DispatchQueue.concurrentPerform(iterations: tiles.count) { i in
                do { _ = try service.tile(image: "image", tile: tiles[i], format: .jpeg) } catch {
                    failure.withLock { $0 = "\(error)" }
                }
            }
            if let message = failure.withLock({ $0 }) { throw CommandFailure(message: message) }
            let elapsed = MonotonicClock.seconds() - started
            print(JSONValue.object([
                ("what", .string(bottomRight ? "bottom-right" : "fit-view")),
                ("tiles", .int(tiles.count)), ("level", .int(tiles[0].level)),
                ("seconds", .double((elapsed * 1000).rounded() / 1000)),
            ]).serialized)
        }
    }
}
