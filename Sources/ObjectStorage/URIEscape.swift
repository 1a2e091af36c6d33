/// Percent-encoding as SigV4 canonicalises it: every byte but `A–Z a–z 0–9 - . _ ~` as `%XX` (upper case), and
/// `/` kept in key paths. Requests are sent in exactly this form, so the signature libcurl computes over the
/// URL is the one the store computes.
enum URIEscape {
    static func escape(_ text: String, keepSlash: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case 65...90, 97...122, 48...57, 45, 46, 95, 126:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case 47 where keepSlash:
                out.append("/")
            default:
                out.append("%")
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 15)]))
            }
        }
        return out
    }
}
