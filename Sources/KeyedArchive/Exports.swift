// `import KeyedArchive` gives everything documented: the property-list formats are a
// module of their own below the archives (`PropertyListFormats`, usable alone), and this
// module re-exports it. The support module has no public symbols; re-exporting it lets
// the package's other modules (the tool, the tests) keep reaching its package-level
// helpers through `import KeyedArchive`. See Documentation/Internals.md.
@_exported import KeyedArchiveSupport
@_exported import PropertyListFormats
