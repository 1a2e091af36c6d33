#if canImport(Glibc)
import Glibc
#endif

/// Facts about the machine.
enum System {
    /// Online CPUs (`sysconf(_SC_NPROCESSORS_ONLN)`).
    static var coreCount: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}
