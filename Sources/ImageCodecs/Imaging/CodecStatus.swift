import CImageIO
import POSIXSupport

extension tsio_status {
    var messageText: String { cText(message) }
    var warningText: String { cText(warning) }

    /// The typed error for a failed call into CImageIO. `rows` is the image height the decoder was working
    /// through (0 while reading the header).
    /// A read of an object in object storage that failed (an outage, a replaced object) is that failure, whatever
    /// the decoder made of the missing bytes.
    func error(path: String, format: SourceFormat, rows: Int) -> ImageSourceError {
        if let remote = RemoteFile.takeFailure(path: path) { return remote }
        switch Int(code) {
        case TSIO_ERR_TRUNCATED:
            return .truncated(path: path, format: format, atByte: Int64(offset), fileSize: Int64(file_size),
                              row: Int(rows_done), rows: rows)
        case TSIO_ERR_NOMEM:
            return .outOfMemory(path: path, message: messageText)
        case TSIO_ERR_UNSUPPORTED:
            return .unsupported(path: path, message: messageText)
        case TSIO_ERR_IO:
            return .cannotOpen(path: path, reason: messageText)
        default:
            return .corrupt(path: path, format: format, atByte: Int64(offset), message: messageText)
        }
    }
}

extension DecodeWarnings {
    /// Adds the warnings one CImageIO call collected.
    mutating func note(_ st: tsio_status) {
        if st.warning_count > 0 { merge(count: Int(st.warning_count), message: st.warningText) }
    }
}

