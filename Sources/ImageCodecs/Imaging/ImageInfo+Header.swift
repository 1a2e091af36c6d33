import CImageIO

extension ImageInfo {
    /// Builds the upright description from a CImageIO header, refusing sizes over the pixel limit.
    init(raw: tsio_info, format: SourceFormat, path: String, fileSize: Int64, modified: Int64, tag: UInt64, limits: ImageLimits) throws {
        let w = Int(raw.width), h = Int(raw.height)
        try limits.check(width: w, height: h, path: path, format: format)
        let orientation = Orientation(exif: Int(raw.orientation))
        let sampleBytes = raw.bit_depth == 16 ? 2 : 1
        if raw.progressive != 0 && format == .png
            && w.multipliedReportingOverflow(by: h).partialValue.multipliedReportingOverflow(by: Int(raw.channels) * sampleBytes).partialValue
                > limits.maxDecoderMemory {
            throw ImageSourceError.outOfMemory(path: path, message: "an interlaced (Adam7) PNG of \(w)×\(h) must be decoded whole, "
                + "\((w * h * Int(raw.channels) * sampleBytes) >> 20) MB on the heap, over the decoder limit of \(limits.maxDecoderMemory >> 20) MB; "
                + "save it without interlacing")
        }
        let names = [1: "gray", 2: "rgb", 3: "cmyk", 4: "ycck", 5: "gray-alpha", 6: "rgba", 7: "palette"]
        self.init(format: format,
                  width: orientation.swapsAxes ? h : w,
                  height: orientation.swapsAxes ? w : h,
                  channels: Int(raw.channels),
                  progressive: raw.progressive != 0,
                  orientation: orientation,
                  colorSpace: names[Int(raw.color_space)] ?? "unknown",
                  bitDepth: Int(raw.bit_depth),
                  restartInterval: Int(raw.restart_interval),
                  fileSize: fileSize,
                  modified: modified,
                  tag: tag)
    }
}
