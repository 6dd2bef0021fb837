/// The process-wide class-name tables behind ``KeyedArchiver/setClassName(_:for:)-swift.type.method``
/// and ``KeyedUnarchiver/setClass(_:forClassName:)-swift.type.method``.
///
/// Archivers and unarchivers consult it once per class they meet, so the lock is not
/// on any per-object path.
final class ArchiveClassRegistry: @unchecked Sendable {
    static let shared = ArchiveClassRegistry()

    private let lock = ArchiveLock()
    /// Archived names by type, for writing.
    private var namesByType: [ObjectIdentifier: String] = [:]
    /// Types by archived name, for reading.
    private var typesByName: [String: any KeyedCoding.Type] = [:]

    func setClassName(_ name: String?, for type: any KeyedCoding.Type) {
        lock.withLock { namesByType[ObjectIdentifier(type)] = name }
    }

    func className(for type: any KeyedCoding.Type) -> String? {
        lock.withLock { namesByType[ObjectIdentifier(type)] }
    }

    func setClass(_ type: (any KeyedCoding.Type)?, forClassName name: String) {
        lock.withLock { typesByName[name] = type }
    }

    func type(forClassName name: String) -> (any KeyedCoding.Type)? {
        lock.withLock { typesByName[name] }
    }
}
