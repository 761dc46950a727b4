"""Writes the mlfkit wheel from the package Bazel built (bazel-bin/python/mlfkit).

    /usr/bin/python3 python/wheel/make_wheel.py PACKAGE_DIR OUT_DIR

The wheel is for Debian 12's CPython 3.11 on x86-64 (tag cp311-cp311-linux_x86_64):
its native module links the system's shared libraries (libarchive, yaml-cpp,
OpenSSL, zstd, zlib, libonnx and protobuf from Debian's packages) rather than
bundling them, and it declares no dependency that pip would fetch (NumPy comes
from Debian's python3-numpy: install into a venv made with
--system-site-packages). Deterministic: the same package gives the same bytes.
"""
import base64
import hashlib
import os
import sys
import zipfile

NAME = "mlfkit"
TAG = "cp311-cp311-linux_x86_64"
# Every file of the package, and nothing else (Bazel's .params files are not).
FILES = ["__init__.py", "__init__.pyi", "_errors.py", "py.typed", "_native.so"]
# A fixed time for every entry: the wheel's bytes depend only on its content.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def version_of(package_dir):
    """The version the native module was built with (artifact/base/version.h)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(package_dir)))
    import mlfkit  # noqa: E402 - the package just built
    return mlfkit.__version__


def metadata(version):
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {NAME}\n"
        f"Version: {version}\n"
        "Summary: Model Library Format archives: compile, verify, sign and run models\n"
        "Requires-Python: ==3.11.*\n"
        "Description-Content-Type: text/plain\n\n"
        "Built for Debian 12 (bookworm): needs its libarchive13, libyaml-cpp0.7, libssl3,\n"
        "libzstd1, zlib1g, libonnx1 and libprotobuf32 packages, and python3-numpy.\n"
    )


def wheel_file():
    return ("Wheel-Version: 1.0\n"
            "Generator: mlfkit make_wheel.py\n"
            "Root-Is-Purelib: false\n"
            f"Tag: {TAG}\n")


def main(argv):
    if len(argv) != 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    package_dir, out_dir = argv[1], argv[2]
    for f in FILES:
        if not os.path.isfile(os.path.join(package_dir, f)):
            print(f"make_wheel: error: {package_dir} has no {f}: build //python:mlfkit first",
                  file=sys.stderr)
            return 1
    version = version_of(package_dir)
    dist_info = f"{NAME}-{version}.dist-info"
    entries = []
    for f in FILES:
        with open(os.path.join(package_dir, f), "rb") as fh:
            entries.append((f"{NAME}/{f}", fh.read()))
    entries.append((f"{dist_info}/METADATA", metadata(version).encode()))
    entries.append((f"{dist_info}/WHEEL", wheel_file().encode()))
    record = "".join(f"{path},{record_hash(data)},{len(data)}\n" for path, data in entries)
    record += f"{dist_info}/RECORD,,\n"
    entries.append((f"{dist_info}/RECORD", record.encode()))
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, f"{NAME}-{version}-{TAG}.whl")
    partial = out + ".partial"
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in entries:
            info = zipfile.ZipInfo(path, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            executable = path.endswith(".so")
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            z.writestr(info, data)
    os.replace(partial, out)  # never a half-written wheel at the final name
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
