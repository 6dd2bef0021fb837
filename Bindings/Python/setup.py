"""Builds the extension `keyedarchive._keyedarchive` with `swift build -c release`.

The Swift package next to this file (Package.swift) depends on the repository's root package
by path (`../..`), so the sdist/wheel must be built from inside the repository:
`pip wheel Bindings/Python`. Environment:

- `SWIFT`: the `swift` executable (default: `swift` on PATH).
- `KEYEDARCHIVE_SWIFT_BUILD_PATH`: a `--scratch-path` for the Swift build (default
  `Bindings/Python/.build`, reused between builds).
"""
import os
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))


class SwiftBuildExt(build_ext):
    """Runs `swift build -c release` and copies the shared object in place of a C build."""

    def build_extension(self, ext):
        swift = os.environ.get("SWIFT", "swift")
        include = sysconfig.get_paths()["include"]
        scratch = os.environ.get("KEYEDARCHIVE_SWIFT_BUILD_PATH", os.path.join(HERE, ".build"))
        command = [
            swift, "build", "-c", "release", "--package-path", HERE, "--scratch-path", scratch,
            "--product", "_keyedarchive",
            "-Xcc", f"-I{include}", "-Xswiftc", "-Xcc", "-Xswiftc", f"-I{include}",
        ]
        if sys.platform == "darwin":
            # Python's symbols come from the interpreter that loads the extension.
            command += ["-Xlinker", "-undefined", "-Xlinker", "dynamic_lookup"]
        print(" ".join(command), flush=True)
        subprocess.run(command, check=True)
        suffix = ".dylib" if sys.platform == "darwin" else ".so"
        built = os.path.join(scratch, "release", "lib_keyedarchive" + suffix)
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)
        if sys.platform != "darwin":
            # Unneeded symbols out: the wheel is a third the size.
            strip = shutil.which("strip")
            if strip:
                subprocess.run([strip, "--strip-unneeded", target], check=True)


class Abi3Wheel(bdist_wheel):
    """Tags the wheel cp311-abi3: the extension uses only the limited API of Python 3.11."""

    def get_tag(self):
        python, abi, plat = super().get_tag()
        if python.startswith("cp"):
            return "cp311", "abi3", plat
        return python, abi, plat


setup(
    ext_modules=[Extension("keyedarchive._keyedarchive", sources=[], py_limited_api=True)],
    cmdclass={"build_ext": SwiftBuildExt, "bdist_wheel": Abi3Wheel},
)
