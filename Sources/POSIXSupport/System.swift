#if canImport(Glibc)
import Glibc
#endif

/// Facts about the machine.
public enum System {
    /// Online CPUs (`sysconf(_SC_NPROCESSORS_ONLN)`).
    public static var coreCount: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}
