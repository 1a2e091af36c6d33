#if canImport(Glibc)
import Glibc
#endif

/// Facts about the machine.
public enum System {
    /// Online CPUs (`sysconf(_SC_NPROCESSORS_ONLN)`).
    public static var coreCount: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}

extension System {
    /// Hands freed heap pages back to the kernel (`malloc_trim(0)`, every arena). glibc keeps what a thread freed
    /// for that thread's next allocations; after a one-off burst (the first scan of a large library, a page of
    /// 10,000 listed images) that would stay in the resident set for good.
    public static func releaseFreeMemory() {
        _ = glibcMallocTrim(0)
    }
}

/// `int malloc_trim(size_t pad)` from `<malloc.h>`, which Glibc's Swift module does not export.
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> CInt
