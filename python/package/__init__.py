"""mlfkit: Model Library Format archives from Python.

Compile a model into an archive, check it, and run it on this host::

    import mlfkit, numpy as np
    mlfkit.export("model.onnx", "model.mlf.tar")
    lib = mlfkit.load("model.mlf.tar")
    ex = lib.executor()
    ex.set_input(0, np.zeros(ex.inputs[0].shape, np.float32))
    ex.run()
    y = ex.get_output(0)        # a view of the executor's buffer, no copy

Every archive is verified before any of its code is loaded (digests, and the
signature when a key is given). Errors raise subclasses of mlfkit.Error with
the same text as the `mlf` command line's.
"""

from typing import Dict, List, Optional, Sequence, Tuple, Union

from . import _native
from ._errors import (AlreadyExistsError, DataLossError, Error,
                      FailedPreconditionError, InternalError,
                      InvalidArgumentError, IOError, NotFoundError,
                      OutOfRangeError, PermissionDeniedError, SignatureError,
                      UnimplementedError)
from ._native import Executor, TensorInfo

__version__: str = _native.__version__
METADATA_VERSION: int = _native.METADATA_VERSION

__all__ = [
    "AlreadyExistsError", "DataLossError", "Error", "Executor",
    "FailedPreconditionError", "InternalError", "InvalidArgumentError",
    "IOError", "Library", "NotFoundError", "OutOfRangeError",
    "PermissionDeniedError", "SignatureError", "TensorInfo",
    "UnimplementedError", "export", "inspect", "keygen", "load", "project", "sign",
    "verify",
]


class Library:
    """An archive loaded on this host: its modules and their executors."""

    def __init__(self, native: "_native.Library", path: str):
        self._native = native
        self.path = path

    @property
    def modules(self) -> List[str]:
        """The module names, sorted."""
        return self._native.modules

    def executor(self, module: Optional[str] = None, threads: int = 1,
                 isa: Optional[str] = None) -> Executor:
        """A new executor for `module` (may be omitted when there is one).

        Each executor has its own buffers and workspace; executors of one
        library run concurrently in different threads. `threads` (1 to 256)
        is the number of threads one run uses: the kernels split their
        outputs over them, so the results are the same bits for any count.
        `isa` forces the kernel variant ('portable', 'avx2', 'avx512';
        default: $MLF_KERNEL_ISA, else the best this CPU runs); a variant
        the CPU lacks raises.
        """
        if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= 256:
            raise InvalidArgumentError(
                f"threads={threads!r}: threads must be an integer from 1 to 256")
        if module is None:
            names = self.modules
            if len(names) != 1:
                raise InvalidArgumentError(
                    f"the archive has {len(names)} modules; choose one with "
                    f"module= ({', '.join(names)})")
            module = names[0]
        return self._native._create_executor(module, threads, isa or "")

    def __repr__(self) -> str:
        return f"mlfkit.Library({self.path!r}, modules={self.modules!r})"


def load(path: str, key: Optional[str] = None,
         require_signature: bool = False) -> Library:
    """Verifies the archive at `path` and loads it with the host loader.

    key: a public key file (NAME.pub, from keygen); the archive must then be
        signed by it. require_signature: refuse unsigned archives even
        without a key. The GIL is released while the archive is checked
        and (for archives without a host library) compiled.
    """
    return Library(_native._load(path, key, require_signature), path)


def export(model_path: str, out_path: str, *, name: Optional[str] = None,
           input_shapes: Optional[Dict[str, Sequence[int]]] = None,
           constants: Optional[Dict[str, "np.ndarray"]] = None,
           link_params: bool = False, keep_source: bool = False,
           build_host_library: bool = True, compress: str = "none") -> Dict:
    """Compiles an ONNX (.onnx) or YAML (.yaml) model into an archive.

    Like `mlf export MODEL[:NAME] -o OUT`: name is the module name (default
    "default"); input_shapes fixes the shapes of ONNX inputs with symbolic
    dimensions ({"input": (1, 3, 224, 224)}, like --input-shape); constants
    turns ONNX inputs whose values fix shapes into constants ({"shape":
    np.array([3, 4])}, like --constant; the array's dtype must be the
    input's); link_params puts the parameters into the code as const
    arrays; keep_source keeps the model file in the archive; compress is
    "none", "gzip" or "zstd". Returns the same report as `mlf export --json`
    (archive, modules with operators, workspace_bytes, parameter_bytes).
    The archive is written atomically: on error nothing is left at out_path.
    """
    shapes = {k: [int(d) for d in v] for k, v in (input_shapes or {}).items()}
    return _native._export(model_path, out_path, name or "default",
                           link_params, keep_source, build_host_library,
                           compress, shapes, dict(constants or {}))


def inspect(path: str) -> Dict:
    """What the archive holds, without running or compiling anything.

    The same document as `mlf inspect --json` (docs/cli-json.md): archive,
    compression, signed, metadata (as stored) and, for TVM archives, the
    normalised model with what this host can run. Reads only the archive's
    metadata; use verify() to check its digests.
    """
    return _native._inspect(path)


def verify(path: str, key: Optional[str] = None,
           require_signature: bool = False) -> Dict:
    """Checks an archive's structure, metadata, digests and signature.

    Returns the report of `mlf verify --json`; a failed check raises (a
    damaged archive DataLossError, a bad signature SignatureError, ...).
    """
    return _native._verify(path, key, require_signature)


def sign(path: str, key: str, out: Optional[str] = None) -> Dict:
    """Signs the archive's metadata with the private key file `key`.

    In place unless `out` is given; the archive is verified first. Returns
    the verification report of the signed archive.
    """
    return _native._sign(path, key, out)


def project(archive: str, out: str, *, board: str = "host", build_system: str = "make",
            sample_inputs: Optional[Dict[str, str]] = None, quantize_inputs: bool = False,
            build: bool = False, run: bool = False, key: Optional[str] = None,
            require_signature: bool = False, profile: bool = False) -> Dict:
    """The archive as a standalone C project in `out` (as `mlf project`).

    `out` must be missing or empty; nothing is written there if anything
    fails. `board` is "host", a built-in board (`mlf boards`) or a board
    file (.yaml); `build_system` "make" or "cmake"; `sample_inputs` maps
    input names to .npy files the firmware feeds the model (else zeros);
    with `quantize_inputs`, a float32 file for a quantized input is
    quantized with the input's scale and zero point (--quantize-inputs).
    The archive is verified first (`key`, `require_signature` as for
    verify()); a project that does not fit its board is refused. With
    `build` (or `run`) the project is built with the board's compiler, with
    `run` also run (on QEMU for Cortex-M boards). Returns the document of
    `mlf project --json`: ok, project, platform, modules, files, and
    built {path, sizes} and run {exit_status, output} as asked; a firmware
    that exits non-zero gives ok False rather than an exception. A run on a
    board QEMU models also reports run.instructions and run.stack, and with
    `profile` (which needs `run`, as --profile needs --run) run.profile:
    instructions per operator.
    """
    if profile and not run:
        raise ValueError("profile=True needs run=True (the profile is measured by running the "
                         "firmware under QEMU)")
    return _native._project(archive, out, board, build_system, sample_inputs or {},
                            quantize_inputs, build, run, key, require_signature, profile)


def keygen(prefix: str) -> Tuple[str, str]:
    """Writes an Ed25519 key pair PREFIX.key (mode 0600) and PREFIX.pub.

    Never overwrites (AlreadyExistsError). Returns both paths.
    """
    return _native._keygen(prefix)
