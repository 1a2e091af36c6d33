import ArgumentParser
import Pyramid
import TileAPI
import ImageCodecs

/// `tileserver decode IMAGE`: streams a decode of the whole image (or a region) and prints a checksum.
/// For benchmarks and for checking that a file decodes to the end; nothing is written.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode an image in bands without keeping it, and print its size, checksum and warnings as JSON."
    )

    @Argument(help: "A JPEG or PNG file.")
    var image: String

    @Option(help: "Shrink factor: 1, 2, 4, 8, ... (JPEG uses DCT scaling up to 8).")
    var shrink: Int = 1

    @Option(help: "Rows per band.")
    var bandRows: Int = 64

    func run() throws {
        let files = ObjectStorageSetup.files(ObjectStorageSetup.make(for: [image]))
        try reportingFailure {
            let source = try ImageOpener.open(image, files: files)
            let (w, h) = source.size(shrink: shrink)
            var sum: UInt64 = 0
            var rows = 0
            let warnings = try source.decode(PixelRect(x: 0, y: 0, width: w, height: h), shrink: shrink, bandRows: bandRows) { band in
                for byte in band.bytes { sum &+= UInt64(byte) }
                rows += band.rows
            }
            let result: JSONValue = .object([
                ("width", .int(w)), ("height", .int(h)), ("rows", .int(rows)),
                ("channels", .int(source.info.channels)), ("sampleSum", .int(Int(truncatingIfNeeded: sum))),
                ("warnings", .int(warnings.count)), ("firstWarning", warnings.first.map(JSONValue.string) ?? .null),
            ])
            print(result.serialized)
        }
    }
}
