// The modules below this one, visible in all of its files (and re-exported, as the umbrella
// `KeyedArchive` re-exports every module of the library).
@_exported import KeyedArchiveSupport
@_exported import KeyedArchiving
@_exported import PropertyListFormats
