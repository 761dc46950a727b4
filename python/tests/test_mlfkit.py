"""The mlfkit Python package as a user drives it: export, load, run, compare.

Run by //python:python_test under Debian's /usr/bin/python3 with PYTHONPATH
set to the package Bazel built (python/tests/run_pytest.sh).
"""
import json
import os
import stat
import subprocess
import threading
import time

import numpy as np
import pytest
import torch

import mlfkit

EXAMPLES = os.environ["MLFKIT_EXAMPLES"]
MLP_YAML = os.path.join(EXAMPLES, "mnist_mlp", "model.yaml")


class SmallCnn(torch.nn.Module):
    """Conv-BN-ReLU, pooling and a linear head: what people export every day."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


def export_onnx(model, example, path):
    model.eval()
    torch.onnx.export(model, example, path, opset_version=13,
                      input_names=["image"], output_names=["logits"])


@pytest.fixture(scope="module")
def cnn(tmp_path_factory):
    """A random-weight SmallCnn, its ONNX file and its archive."""
    torch.manual_seed(0)
    model = SmallCnn()
    with torch.no_grad():  # BatchNorm statistics that are not the identity
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
    d = tmp_path_factory.mktemp("cnn")
    onnx_path = str(d / "cnn.onnx")
    export_onnx(model, torch.zeros(1, 3, 16, 16), onnx_path)
    archive = str(d / "cnn.mlf.tar")
    report = mlfkit.export(onnx_path, archive)
    return model, onnx_path, archive, report


def test_export_load_run_matches_pytorch(cnn):
    model, _, archive, report = cnn
    assert report["archive"] == archive
    assert [m["name"] for m in report["modules"]] == ["default"]
    assert report["modules"][0]["operators"] > 0
    lib = mlfkit.load(archive)
    assert lib.modules == ["default"]
    ex = lib.executor()
    assert [(t.name, t.dtype, t.shape) for t in ex.inputs] == [("image", "float32", (1, 3, 16, 16))]
    assert [(t.name, t.dtype, t.shape) for t in ex.outputs] == [("logits", "float32", (1, 5))]
    assert ex.inputs[0].quantization is None
    rng = np.random.default_rng(0)
    for _ in range(3):
        x = rng.standard_normal((1, 3, 16, 16), dtype=np.float32)
        ex.set_input("image", x)
        ex.run()
        with torch.no_grad():
            want = model(torch.from_numpy(x)).numpy()
        np.testing.assert_allclose(ex.get_output("logits"), want, rtol=1e-4, atol=1e-5)


def test_get_output_is_a_view_that_the_next_run_changes(cnn):
    ex = mlfkit.load(cnn[2]).executor()
    ex.set_input(0, np.ones((1, 3, 16, 16), np.float32))
    ex.run()
    first = ex.get_output(0)
    again = ex.get_output("logits")
    # The same memory: the executor's own output buffer, no copy.
    assert first.__array_interface__["data"][0] == again.__array_interface__["data"][0]
    assert not first.flags["OWNDATA"]
    kept = first.copy()
    ex.set_input(0, np.full((1, 3, 16, 16), -1.0, np.float32))
    ex.run()
    assert not np.array_equal(first, kept), "the view must show the latest run"
    np.testing.assert_array_equal(first, ex.get_output(0))
    # DLPack from the view: NumPy's own __dlpack__ shares the memory.
    assert np.from_dlpack(first).__array_interface__["data"][0] == first.__array_interface__["data"][0]
    # The view keeps the executor alive after its last other reference goes.
    del ex
    assert first.shape == (1, 5) and np.isfinite(first).all()


def test_bind_input_is_zero_copy(cnn):
    ex = mlfkit.load(cnn[2]).executor()
    x = np.zeros((1, 3, 16, 16), np.float32)
    ex.bind_input("image", x)
    ex.run()
    at_zero = ex.get_output(0).copy()
    x[...] = 1.0  # changed after binding: run() reads the array itself
    ex.run()
    assert not np.array_equal(ex.get_output(0), at_zero)
    ex.set_input("image", np.zeros((1, 3, 16, 16), np.float32))  # copies; ends the binding
    x[...] = 5.0
    ex.run()
    np.testing.assert_array_equal(ex.get_output(0), at_zero)


def test_wrong_arrays_are_refused_naming_input_expected_and_given(cnn):
    ex = mlfkit.load(cnn[2]).executor()
    cases = [
        (np.zeros((1, 3, 16, 16), np.float64),
         "input 'image': dtype float64 does not match the model's float32"),
        (np.zeros((1, 3, 16, 15), np.float32),
         "input 'image': shape [1, 3, 16, 15] does not match the model's [1, 3, 16, 16]"),
        ([[1.0, 2.0]], "input 'image': dtype float64 does not match the model's float32"),
        (np.zeros((1, 3, 16, 16), np.complex64),
         "input 'image': a NumPy array of dtype complex64 is not a tensor"),
    ]
    for value, message in cases:
        with pytest.raises(mlfkit.InvalidArgumentError) as info:
            ex.set_input("image", value)
        assert str(info.value).startswith(message), str(info.value)
        assert isinstance(info.value, ValueError)
    strided = np.zeros((1, 3, 16, 32), np.float32)[:, :, :, ::2]
    with pytest.raises(ValueError, match="tensor is strided; only dense C-order"):
        ex.bind_input(0, strided)
    ex.set_input(0, strided)  # set_input copies, so any layout will do
    with pytest.raises(mlfkit.NotFoundError, match="no input named 'photo'"):
        ex.set_input("photo", np.zeros((1, 3, 16, 16), np.float32))
    with pytest.raises(mlfkit.OutOfRangeError, match=r"^output index 3 is out of range \(the model has 1 output\)$"):
        ex.get_output(3)
    with pytest.raises(IndexError):
        ex.get_output(-2)


class HeavyCnn(torch.nn.Module):
    """Eight 3x3 convolutions of 64 channels on 128x128: 4.8 billion MACs, so one run
    lasts well over 50 ms even with fast kernels."""

    def __init__(self):
        super().__init__()
        self.convs = torch.nn.ModuleList(torch.nn.Conv2d(64, 64, 3, padding=1) for _ in range(8))

    def forward(self, x):
        for c in self.convs:
            x = torch.relu(c(x))
        return x


def test_run_releases_the_gil(tmp_path):
    torch.manual_seed(1)
    onnx_path = str(tmp_path / "heavy.onnx")
    export_onnx(HeavyCnn(), torch.zeros(1, 64, 128, 128), onnx_path)
    archive = str(tmp_path / "heavy.mlf.tar")
    mlfkit.export(onnx_path, archive)
    ex = mlfkit.load(archive).executor()
    ex.set_input(0, np.ones((1, 64, 128, 128), np.float32))
    count = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        time.sleep(0.01)
        before = count[0]
        start = time.perf_counter()
        ex.run()
        elapsed = time.perf_counter() - start
        advanced = count[0] - before
    finally:
        stop.set()
        spinner.join()
    assert elapsed >= 0.05, f"the run took {elapsed * 1000:.1f} ms: make HeavyCnn heavier"
    # Python's switch interval is 5 ms: a run that held the GIL would let the
    # spinner count only between runs; with the GIL released it counts throughout.
    assert advanced > 1000, f"the spinner counted {advanced} during a {elapsed * 1000:.0f} ms run"


def test_two_executors_run_in_two_threads(cnn):
    model, _, archive, _ = cnn
    lib = mlfkit.load(archive)
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal((1, 3, 16, 16), dtype=np.float32) for _ in range(2)]
    results = [None, None]
    errors = []

    def work(i):
        try:
            ex = lib.executor()
            for _ in range(50):
                ex.set_input(0, xs[i])
                ex.run()
            results[i] = ex.get_output(0).copy()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with torch.no_grad():
        for i in range(2):
            np.testing.assert_allclose(results[i], model(torch.from_numpy(xs[i])).numpy(),
                                       rtol=1e-4, atol=1e-5)


def test_intra_op_threads_and_forced_variant(cnn):
    _, _, archive, _ = cnn
    lib = mlfkit.load(archive)
    x = np.random.default_rng(5).standard_normal((1, 3, 16, 16), dtype=np.float32)
    outputs = []
    for threads in (1, 2, 3):
        ex = lib.executor(threads=threads, isa="portable")
        assert (ex.threads, ex.isa) == (threads, "portable")
        ex.set_input(0, x)
        ex.run()
        outputs.append(ex.get_output(0).copy())
    for out in outputs[1:]:
        assert out.tobytes() == outputs[0].tobytes()
    assert lib.executor().isa == "auto"


def test_verify_sign_and_keys(tmp_path):
    archive = str(tmp_path / "mlp.tar")
    mlfkit.export(MLP_YAML, archive, name="mlp")
    report = mlfkit.verify(archive)
    assert report["ok"] is True and report["signed"] is False
    assert report["modules"] == ["mlp"]
    key, pub = mlfkit.keygen(str(tmp_path / "dev"))
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    with pytest.raises(mlfkit.AlreadyExistsError):
        mlfkit.keygen(str(tmp_path / "dev"))
    with pytest.raises(mlfkit.SignatureError):
        mlfkit.load(archive, require_signature=True)
    signed = mlfkit.sign(archive, key, out=str(tmp_path / "signed.tar"))
    assert signed["signed"] is True
    assert mlfkit.verify(str(tmp_path / "signed.tar"), key=pub)["signature_checked"] is True
    lib = mlfkit.load(str(tmp_path / "signed.tar"), key=pub, require_signature=True)
    assert lib.modules == ["mlp"]
    _, other_pub = mlfkit.keygen(str(tmp_path / "other"))
    with pytest.raises(mlfkit.SignatureError, match="signed by a different key"):
        mlfkit.load(str(tmp_path / "signed.tar"), key=other_pub)


def test_inspect_is_the_cli_document(tmp_path):
    archive = str(tmp_path / "mlp.tar")
    mlfkit.export(MLP_YAML, archive, name="mlp")
    doc = mlfkit.inspect(archive)
    assert doc["archive"] == archive
    assert doc["schema_version"] == 1 and doc["mlf_version"] == mlfkit.__version__
    assert doc["compression"] == "none" and doc["signed"] is False
    mlp = doc["metadata"]["modules"]["mlp"]
    assert mlp["inputs"][0]["shape"] == [1, 784]
    assert mlp["source"]["format"] == "yaml" and "path" not in mlp["source"]
    # The same document as the command line's.
    cli = json.loads(subprocess.run([os.environ["MLFKIT_MLF"], "inspect", archive, "--json"],
                                    check=True, capture_output=True, text=True).stdout)
    assert cli == doc
    cli_verify = json.loads(subprocess.run([os.environ["MLFKIT_MLF"], "verify", archive, "--json"],
                                           check=True, capture_output=True, text=True).stdout)
    assert cli_verify == mlfkit.verify(archive)
    with pytest.raises(mlfkit.IOError, match="cannot open archive"):
        mlfkit.inspect(str(tmp_path / "nope.tar"))


def test_errors_carry_the_cli_messages(tmp_path):
    missing = str(tmp_path / "nope.tar")
    with pytest.raises(mlfkit.IOError) as info:
        mlfkit.load(missing)
    assert str(info.value) == f"{missing}: cannot open archive '{missing}': No such file or directory"
    assert isinstance(info.value, mlfkit.Error) and isinstance(info.value, OSError)
    # A damaged archive: one byte of the code changed.
    archive = str(tmp_path / "mlp.tar")
    mlfkit.export(MLP_YAML, archive)
    data = bytearray(open(archive, "rb").read())
    at = data.find(b"tvmgen_default_run")
    data[at] ^= 0x20
    bad = str(tmp_path / "bad.tar")
    open(bad, "wb").write(bytes(data))
    with pytest.raises(mlfkit.DataLossError, match="SHA-256 mismatch"):
        mlfkit.verify(bad)
    with pytest.raises(mlfkit.DataLossError):
        mlfkit.load(bad)
    with pytest.raises(mlfkit.InvalidArgumentError, match="compress must be 'none', 'gzip' or 'zstd'"):
        mlfkit.export(MLP_YAML, str(tmp_path / "x.tar"), compress="lz4")
    assert not os.path.exists(str(tmp_path / "x.tar"))
    with pytest.raises(mlfkit.Error):
        mlfkit.export(str(tmp_path / "missing.onnx"), str(tmp_path / "y.tar"))
    assert not os.path.exists(str(tmp_path / "y.tar"))
    lib = mlfkit.load(archive)
    for bad in (0, 257, 1.5, True):
        with pytest.raises(mlfkit.InvalidArgumentError) as e:
            lib.executor(threads=bad)
        assert str(e.value) == "threads=%r: threads must be an integer from 1 to 256" % (bad,)
    with pytest.raises(mlfkit.InvalidArgumentError) as e:
        lib.executor(isa="sse2")
    assert str(e.value) == "unknown kernel variant 'sse2' (known: portable, avx2, avx512)"
    with pytest.raises(mlfkit.NotFoundError):
        lib.executor("nope")


def test_version_and_stubs():
    assert mlfkit.__version__ == "0.1.0"
    assert mlfkit.METADATA_VERSION == 9
    package_dir = os.path.dirname(mlfkit.__file__)
    assert os.path.exists(os.path.join(package_dir, "__init__.pyi"))
    assert os.path.exists(os.path.join(package_dir, "py.typed"))
    assert mlfkit.Executor.get_output.__doc__ and "no copy" in mlfkit.Executor.get_output.__doc__


def test_export_input_shapes_fix_a_dynamic_batch(tmp_path):
    """A model exported with a dynamic batch axis compiles once its batch is fixed."""
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(6, 4), torch.nn.ReLU()).eval()
    onnx_path = str(tmp_path / "dyn.onnx")
    torch.onnx.export(model, torch.zeros(1, 6), onnx_path, opset_version=13,
                      input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    with pytest.raises(mlfkit.InvalidArgumentError) as refused:
        mlfkit.export(onnx_path, str(tmp_path / "no.tar"))
    assert str(refused.value).endswith(
        "input 'x': dimension 0 ('batch') is symbolic; fix it with input_shapes x=1,6")
    assert not os.path.exists(tmp_path / "no.tar")
    archive = str(tmp_path / "dyn.tar")
    mlfkit.export(onnx_path, archive, input_shapes={"x": (3, 6)})
    ex = mlfkit.load(archive).executor()
    x = np.random.default_rng(1).standard_normal((3, 6)).astype(np.float32)
    ex.set_input("x", x)
    ex.run()
    with torch.no_grad():
        want = model(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(ex.get_output(0), want, rtol=1e-5, atol=1e-6)


def test_export_constants_freeze_a_shape_input(tmp_path):
    """An input that only fixes a shape (Reshape's) becomes a constant."""
    # torch would trace the shape into a constant: the model is written field by field.
    onnx_path = str(tmp_path / "reshape.onnx")
    with open(onnx_path, "wb") as f:
        f.write(_reshape_model_bytes())
    with pytest.raises(mlfkit.InvalidArgumentError) as refused:
        mlfkit.export(onnx_path, str(tmp_path / "no.tar"))
    assert "give its value with constants shape=FILE.npy" in str(refused.value)
    with pytest.raises(mlfkit.InvalidArgumentError) as wrong:
        mlfkit.export(onnx_path, str(tmp_path / "no.tar"),
                      constants={"shape": np.array([3, 4], dtype=np.int32)})
    assert str(wrong.value).endswith(
        "constants 'shape' is int32 [2], but the model declares INT64 [2]")
    archive = str(tmp_path / "reshape.tar")
    mlfkit.export(onnx_path, archive, constants={"shape": np.array([3, 4], dtype=np.int64)})
    ex = mlfkit.load(archive).executor()
    assert [t.name for t in ex.inputs] == ["x"]
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    ex.set_input("x", x)
    ex.run()
    np.testing.assert_array_equal(ex.get_output(0), x.reshape(3, 4))


def _field(number, value):
    """One protobuf field: varint for ints, length-delimited for bytes/str."""
    def varint(n):
        out = b""
        while True:
            byte, n = n & 0x7F, n >> 7
            out += bytes([byte | (0x80 if n else 0)])
            if not n:
                return out
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    data = value.encode() if isinstance(value, str) else value
    return varint(number << 3 | 2) + varint(len(data)) + data


def _value_info(name, elem_type, dims):
    """ValueInfoProto: name, TypeProto.tensor_type (elem_type, shape; str dims are symbolic)."""
    shape = b"".join(_field(1, _field(2 if isinstance(d, str) else 1, d)) for d in dims)
    tensor = _field(1, elem_type) + _field(2, shape)
    return _field(1, name) + _field(2, _field(1, tensor))


def _reshape_model_bytes():
    """ONNX opset 13: y = Reshape(x float[2, 6], shape int64[2]) with `shape` a graph input."""
    node = _field(1, "x") + _field(1, "shape") + _field(2, "y") + _field(3, "reshape") + \
        _field(4, "Reshape")
    graph = _field(1, node) + _field(2, "g") + _field(11, _value_info("x", 1, [2, 6])) + \
        _field(11, _value_info("shape", 7, [2])) + \
        _field(12, _value_info("y", 1, ["rows", "columns"]))
    return _field(1, 8) + _field(7, graph) + _field(8, _field(1, "") + _field(2, 13))


QUANTIZED_YAML = """
mlf_model: 1
name: quantized_io
inputs:
  - {name: x, dtype: int8, shape: [1, 4]}
parameters:
  x.scale: {dtype: float32, shape: [], values: 0.5}
  x.zero_point: {dtype: int8, shape: [], values: -3}
  y.scale: {dtype: float32, shape: [], values: 0.25}
  y.zero_point: {dtype: uint8, shape: [], values: 10}
nodes:
  - {op: DequantizeLinear, inputs: [x, x.scale, x.zero_point], outputs: [xf]}
  - {op: Relu, inputs: [xf], outputs: [r]}
  - {op: QuantizeLinear, inputs: [r, y.scale, y.zero_point], outputs: [y]}
outputs: [y]
"""


def test_quantization_and_memory_plan_from_metadata(tmp_path):
    """Metadata version 9: an executor's tensors carry their scale and zero point,
    and inspect() holds the memory plan."""
    model = tmp_path / "q.yaml"
    model.write_text(QUANTIZED_YAML)
    archive = str(tmp_path / "q.tar")
    mlfkit.export(str(model), archive)
    ex = mlfkit.load(archive).executor()
    assert ex.inputs[0].quantization == {"scale": [0.5], "zero_point": [-3], "axis": None}
    assert ex.outputs[0].quantization == {"scale": [0.25], "zero_point": [10], "axis": None}
    ex.set_input("x", np.array([[-5, -3, 1, 40]], dtype=np.int8))
    ex.run()
    # relu((q + 3) * 0.5) / 0.25 + 10: -1 -> 0 -> 10; 0 -> 10; 2 -> 18; 21.5 -> 96.
    assert ex.get_output(0).tolist() == [[10, 10, 18, 96]]
    module = mlfkit.inspect(archive)["metadata"]["modules"]["default"]
    assert module["memory"]["plan"][0]["kind"] == "value"
    assert [o["param_bytes"] for o in module["operators"]] == [5, 0, 5]


def test_project_quantizes_float_sample_inputs(tmp_path):
    """project(quantize_inputs=True) is `mlf project --quantize-inputs`."""
    model = tmp_path / "q.yaml"
    model.write_text(QUANTIZED_YAML)
    archive = str(tmp_path / "q.tar")
    mlfkit.export(str(model), archive)
    sample = str(tmp_path / "x.npy")
    # x / 0.5 - 3 -> -7, -3, 1, 40; then relu((q + 3) * 0.5) / 0.25 + 10.
    np.save(sample, np.array([[-2, 0, 2, 21.5]], dtype=np.float32))
    with pytest.raises(mlfkit.InvalidArgumentError) as refused:
        mlfkit.project(archive, str(tmp_path / "fw0"), sample_inputs={"x": sample})
    assert str(refused.value) == (f"sample input 'x' ({sample}): the .npy file holds float32, the "
                                  "input is int8 (scale 0.5, zero point -3): pass "
                                  "--quantize-inputs to quantize float data with them")
    doc = mlfkit.project(archive, str(tmp_path / "fw"), sample_inputs={"x": sample},
                         quantize_inputs=True, run=True)
    assert doc["ok"] is True
    assert "output y 4 10 10 18 96\n" in doc["run"]["output"]


def test_project_profiles_operators(tmp_path):
    """project(profile=True) is `mlf project --run --profile`: instructions per operator, and the stack."""
    archive = str(tmp_path / "cnn.tar")
    mlfkit.export(os.path.join(EXAMPLES, "tiny_cnn", "model.yaml"), archive)
    with pytest.raises(ValueError) as refused:
        mlfkit.project(archive, str(tmp_path / "fw0"), board="mps2-an386", profile=True)
    assert str(refused.value) == ("profile=True needs run=True (the profile is measured by running the "
                                  "firmware under QEMU)")
    assert not os.path.exists(tmp_path / "fw0")
    doc = mlfkit.project(archive, str(tmp_path / "fw"), board="mps2-an386", run=True, profile=True)
    assert doc["ok"] is True
    profile = doc["run"]["profile"][0]
    whole = doc["run"]["instructions"][0]["instructions"]
    assert profile["inference_instructions"] == whole
    assert [o["index"] for o in profile["operators"]] == list(range(len(profile["operators"])))
    assert 0 < profile["operator_instructions"] <= whole
    stack = doc["run"]["stack"]
    assert 0 < stack["measured"][0]["bytes"] <= stack["bounds"][0]["bytes"]


def test_project_builds_and_runs_on_the_host(tmp_path):
    """project() is `mlf project --json`: generate, build and run a firmware project."""
    archive = str(tmp_path / "cnn.tar")
    mlfkit.export(os.path.join(EXAMPLES, "tiny_cnn", "model.yaml"), archive)
    image = str(tmp_path / "image.npy")
    np.save(image, np.linspace(-1, 1, 64, dtype=np.float32).reshape(1, 1, 8, 8))
    out = str(tmp_path / "fw")
    doc = mlfkit.project(archive, out, sample_inputs={"image": image}, build=True, run=True)
    assert doc["ok"] is True and doc["platform"] == "host" and doc["modules"] == ["default"]
    assert doc["project"] == out and os.path.exists(doc["built"]["path"])
    assert doc["run"]["exit_status"] == 0
    assert "logits" in doc["run"]["output"]
    assert doc["schema_version"] == 1

    # The firmware prints "output <label> <count> <v0> ...", each float32 as
    # %.9g (exact): its logits are the host loader's bit for bit.
    ex = mlfkit.load(archive).executor()
    ex.set_input("image", np.load(image))
    ex.run()
    lines = [line.split() for line in doc["run"]["output"].splitlines() if line.startswith("output ")]
    assert len(lines) == 1 and lines[0][2] == "10", doc["run"]["output"]
    printed = np.array([float(v) for v in lines[0][3:]], dtype=np.float32)
    np.testing.assert_array_equal(printed, ex.get_output("logits").reshape(-1))

    # Into a directory that holds something: refused, nothing written.
    with pytest.raises(mlfkit.AlreadyExistsError) as refused:
        mlfkit.project(archive, out)
    assert str(refused.value) == f"'{out}' already exists and is not an empty directory: choose a new one"
    with pytest.raises(mlfkit.InvalidArgumentError) as unknown:
        mlfkit.project(archive, str(tmp_path / "fw2"), board="nope")
    assert str(unknown.value).startswith("unknown board 'nope' (built in: ")
    assert not os.path.exists(tmp_path / "fw2")
