#if canImport(Glibc)
import Glibc
#endif

/// One line on standard error, with a single `write(2)` so lines from threads never interleave.
func printError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { bytes in
        _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count)
    }
}
