#!/usr/bin/env python3
"""Compiles every ```swift block in README.md, Documentation/*.md and the DocC catalog.

Each markdown file becomes one executable target of a throw-away package that depends
on KeyedArchive by path. Nothing is added that the reader does not see: a block compiles
with the imports written in it or in an earlier block of the same file (a reader who
follows a guide from the top has written them too), and with no other. Write
`import KeyedArchive`, and `import Foundation` wherever a block uses `Data`, `Date`, `URL`,
`FileManager` and the like.

Blocks that declare types (lines starting at column 0 with `struct`, `class`,
`final class`, `enum`, `protocol`, `extension`, `func`, `actor`; `let`/`var` at file
scope are not detected, so declare them inside types) go at file scope, shared by the
file's later blocks, as a tutorial builds on earlier steps. Other blocks are statements
and are wrapped in their own throwing function (the compiler accepts statements at top
level only in main.swift), so each must stand alone.

Usage: check-doc-examples.py [--scratch-path DIR]
"""
import os, re, shutil, subprocess, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
scratch = os.path.join(root, ".build-docs")
if len(sys.argv) > 2 and sys.argv[1] == "--scratch-path":
    scratch = os.path.abspath(sys.argv[2])

sources = [os.path.join(root, "README.md")]
for folder in ["Documentation", "Sources/KeyedArchive/KeyedArchive.docc",
               "Sources/PropertyListFormats/PropertyListFormats.docc"]:
    path = os.path.join(root, folder)
    if os.path.isdir(path):
        for name in sorted(os.listdir(path)):
            if name.endswith(".md"):
                sources.append(os.path.join(path, name))

declaration = re.compile(r"^(public |final |private |fileprivate |internal |@[A-Za-z]+ )*"
                         r"(struct|class|enum|protocol|extension|func|actor)\b")
block_pattern = re.compile(r"^```swift[ \t]*\n(.*?)^```", re.S | re.M)

package_dir = os.path.join(scratch, "package")
if os.path.isdir(os.path.join(package_dir, "Sources")):
    shutil.rmtree(os.path.join(package_dir, "Sources"))
os.makedirs(package_dir, exist_ok=True)

targets = []
total = 0
for source in sources:
    text = open(source, encoding="utf-8").read()
    blocks = block_pattern.findall(text)
    if not blocks:
        continue
    name = "Doc_" + re.sub(r"[^A-Za-z0-9]", "_", os.path.splitext(os.path.basename(source))[0])
    target_dir = os.path.join(package_dir, "Sources", name)
    os.makedirs(target_dir, exist_ok=True)
    # Only what the file itself imports, block by block: nothing is added.
    imports = set()
    calls = []
    for index, block in enumerate(blocks):
        lines = block.splitlines()
        for line in lines:
            if line.startswith("import "):
                imports.add(line.strip())
        body = [l for l in lines if not l.startswith("import ")]
        is_declaration = any(declaration.match(l) for l in body)
        file_name = os.path.join(target_dir, f"Block{index:02d}.swift")
        header = f"// {os.path.relpath(source, root)}, swift block {index + 1}\n"
        with open(file_name, "w", encoding="utf-8") as out:
            out.write(header + "\n".join(sorted(imports)) + "\n\n")
            if is_declaration:
                out.write("\n".join(body) + "\n")
            else:
                out.write(f"func block{index:02d}() throws {{\n")
                out.write("\n".join("    " + l for l in body) + "\n}\n")
                calls.append(f"block{index:02d}")
        total += 1
    with open(os.path.join(target_dir, "main.swift"), "w", encoding="utf-8") as out:
        out.write("// Compiled, not run: examples may touch files or the network.\n")
        out.write("let examples: [() throws -> Void] = [" + ", ".join(calls) + "]\n")
        out.write("_ = examples\n")
    targets.append(name)

manifest = ["// swift-tools-version:6.0", "import PackageDescription", "",
            "let package = Package(", '    name: "DocExamples",',
            f'    dependencies: [.package(name: "KeyedArchive", path: "{root}")],',
            "    targets: ["]
for target in targets:
    manifest.append(f'        .executableTarget(name: "{target}", dependencies: '
                    f'[.product(name: "KeyedArchive", package: "KeyedArchive"), '
                    f'.product(name: "KeyedArchiveFoundation", package: "KeyedArchive"), '
                    f'.product(name: "PropertyListFormats", package: "KeyedArchive")], '
                    # Members of a module's extensions only where that module is imported
                    # (by default they leak from any file of the target that imports it).
                    f'swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),')
manifest += ["    ]", ")", ""]
with open(os.path.join(package_dir, "Package.swift"), "w") as out:
    out.write("\n".join(manifest))

print(f"doc examples: {total} swift blocks in {len(targets)} files")
if not targets:
    sys.exit(0)
result = subprocess.run(["swift", "build", "--package-path", package_dir,
                         "--scratch-path", os.path.join(scratch, "build")])
sys.exit(result.returncode)
