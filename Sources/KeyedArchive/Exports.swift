@_exported import ArchivedAppleClasses
// `import KeyedArchive` gives everything documented. The library is built in modules along
// its layers (Package.swift lists them, Documentation/Internals.md explains them); this
// module is the umbrella that re-exports them all, so no user has to know the split.
//
// The support module has no public symbols; re-exporting it lets the package's other
// modules (the tool, the tests) keep reaching its package-level helpers through
// `import KeyedArchive`. The fuzzing SPI is re-exported for the fuzzers. SQLiteFormat, the
// read-only SQLite reader, depends on nothing here and is re-exported so that one import
// reads the databases the archives live in (it is also a product of its own).
@_exported import KeyedArchiveSupport
@_exported import KeyedArchiving
@_exported import PropertyListFormats
@_exported import SQLiteFormat
@_exported import TypedStreamFormat
