#if canImport(Glibc)
import Glibc
#endif

/// Facts about the machine.
package enum System {
    /// Online CPUs (`sysconf(_SC_NPROCESSORS_ONLN)`).
    package static var coreCount: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}

extension System {
    /// Hands freed heap pages back to the kernel (`malloc_trim(0)`, every arena). glibc keeps what a thread freed
    /// for that thread's next allocations; after a one-off burst (the first scan of a large library, a page of
    /// 10,000 listed images) that would stay in the resident set for good.
    package static func releaseFreeMemory() {
        _ = glibcMallocTrim(0)
    }
}

extension System {
    /// Makes every allocation of `bytes` or more its own mapping, returned to the kernel when freed
    /// (`mallopt(M_MMAP_THRESHOLD)`). glibc's default threshold rises after such a block is freed, so large pixel
    /// buffers (a low pyramid level is averaged from regions of up to 19 MB) end up in arenas that keep their
    /// pages: a 10-minute soak on a 20,000² photo with a 64 MB cache sat at 180–200 MB resident with the default
    /// and at 113 MB with 4 MiB fixed. Smaller buffers (tiles, request and response bytes) keep the heap, and an
    /// arena keeps up to `bytes` of free memory at its top (`M_TRIM_THRESHOLD`) instead of the default 128 KiB: a
    /// region request's half-megabyte buffers otherwise went back to the kernel after every request and were
    /// faulted in and zeroed again by the next (in a profile of regions assembled from stored tiles, kernel time,
    /// mostly those page faults and their zeroing, was 30 % of the CPU).
    package static func mapLargeAllocations(from bytes: Int) {
        _ = glibcMallopt(-3 /* M_MMAP_THRESHOLD */, CInt(bytes))
        _ = glibcMallopt(-1 /* M_TRIM_THRESHOLD */, CInt(bytes))
    }
}

/// `int mallopt(int param, int value)` from `<malloc.h>`, which Glibc's Swift module does not export.
@_silgen_name("mallopt")
private func glibcMallopt(_ param: CInt, _ value: CInt) -> CInt

/// `int malloc_trim(size_t pad)` from `<malloc.h>`, which Glibc's Swift module does not export.
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> CInt
