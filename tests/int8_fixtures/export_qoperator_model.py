"""A QOperator model written with the ONNX helper API, in the form ONNX
Runtime's quantizer writes (QLinearConv and the com.microsoft contrib
operators), with its expected output from a NumPy reference of each
operator's definition: the fixture of tests/qoperator_cli_test.cc.

usage: /usr/bin/python3 export_qoperator_model.py MODEL.onnx INPUT.npy EXPECTED.npy STEP.txt

The graph (NCHW, batch 2, uint8 activations, int8 per-channel weights):

  x float [2,3,8,8] -> QuantizeLinear -> QLinearConv 3x3 (8 channels)
    -> QLinearLeakyRelu -> l
  l -> QLinearConv 1x1 -> QLinearAdd(., l) -> a
  a -> QLinearSigmoid -> QLinearMul(., a) -> QLinearAveragePool 2x2 -> p1
  a -> QLinearAveragePool 2x2 -> p2
  QLinearConcat(p1, p2) -> QLinearGlobalAveragePool -> DequantizeLinear -> y [2,16,1,1]

The reference follows the operators' definitions: QuantizeLinear rounds
x / scale half to even in float32 and saturates; QLinearConv sums
zero-point-adjusted products in int32, adds the bias and requantizes with
x_scale * w_scale / y_scale in double; each contrib operator is
DequantizeLinear -> its float operator (float32) -> QuantizeLinear.
STEP.txt holds the output's scale.
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

SEED = 0
U8 = (0, 255)


def quantize(x, scale, zp):
    q = np.rint(x.astype(np.float32) / np.float32(scale)) + zp
    return np.clip(q, *U8).astype(np.uint8)


def dequantize(q, scale, zp):
    return (q.astype(np.int32) - zp).astype(np.float32) * np.float32(scale)


def qlinear_conv(x, xs, xzp, w, ws, bias, ys, yzp, pad):
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    xi = np.pad(x.astype(np.int32) - xzp, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    acc = np.zeros((n, m, h, wd), np.int64)
    for i in range(kh):
        for j in range(kw):
            patch = xi[:, :, i:i + h, j:j + wd]
            acc += np.einsum("nchw,mc->nmhw", patch, w[:, :, i, j].astype(np.int32))
    acc += bias.reshape(1, m, 1, 1)
    mult = (np.float64(np.float32(xs)) * ws.astype(np.float32).astype(np.float64)
            / np.float64(np.float32(ys)))
    y = np.rint(acc.astype(np.float64) * mult.reshape(1, m, 1, 1)) + yzp
    return np.clip(y, *U8).astype(np.uint8)


def through_float(fn, operands, ys, yzp):
    return quantize(fn(*[dequantize(*o) for o in operands]), ys, yzp)


def avg_pool2(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).mean(axis=(3, 5), dtype=np.float32)


def sigmoid(x):
    return (1 / (1 + np.exp(-x))).astype(np.float32)


def main(model_path, input_path, expected_path, step_path):
    rng = np.random.default_rng(SEED)
    x = rng.uniform(-3, 3, (2, 3, 8, 8)).astype(np.float32)
    w1 = rng.integers(-60, 61, (8, 3, 3, 3)).astype(np.int8)
    w1s = rng.uniform(0.002, 0.006, 8).astype(np.float32)
    b1 = rng.integers(-500, 501, 8).astype(np.int32)
    w2 = rng.integers(-60, 61, (8, 8, 1, 1)).astype(np.int8)
    w2s = rng.uniform(0.004, 0.01, 8).astype(np.float32)
    b2 = rng.integers(-300, 301, 8).astype(np.int32)
    # scale, zero point of each quantized tensor
    q = {"xq": (0.03, 128), "c1": (0.04, 120), "l": (0.03, 100), "c2": (0.05, 128),
         "a": (0.06, 110), "sg": (1 / 256, 0), "m": (0.05, 100), "p1": (0.05, 100),
         "p2": (0.06, 110), "cat": (0.05, 100), "g": (0.02, 90)}

    inits = [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w1s, "w1_scale"),
             numpy_helper.from_array(np.zeros(8, np.int8), "w1_zp"),
             numpy_helper.from_array(b1, "b1"),
             numpy_helper.from_array(w2, "w2"), numpy_helper.from_array(w2s, "w2_scale"),
             numpy_helper.from_array(np.zeros(8, np.int8), "w2_zp"),
             numpy_helper.from_array(b2, "b2")]
    for name, (s, zp) in q.items():
        inits.append(numpy_helper.from_array(np.array(s, np.float32), name + "_s"))
        inits.append(numpy_helper.from_array(np.array(zp, np.uint8), name + "_zp"))

    def qp(name):
        return [name, name + "_s", name + "_zp"]

    ms = "com.microsoft"
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xq_s", "xq_zp"], ["xq"], name="quantize"),
        helper.make_node("QLinearConv", qp("xq") + ["w1", "w1_scale", "w1_zp", "c1_s", "c1_zp", "b1"],
                         ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("QLinearLeakyRelu", qp("c1") + ["l_s", "l_zp"], ["l"], name="leaky",
                         domain=ms, alpha=0.1),
        helper.make_node("QLinearConv", qp("l") + ["w2", "w2_scale", "w2_zp", "c2_s", "c2_zp", "b2"],
                         ["c2"], name="conv2"),
        helper.make_node("QLinearAdd", qp("c2") + qp("l") + ["a_s", "a_zp"], ["a"], name="add",
                         domain=ms),
        helper.make_node("QLinearSigmoid", qp("a") + ["sg_s", "sg_zp"], ["sg"], name="sigmoid",
                         domain=ms),
        helper.make_node("QLinearMul", qp("sg") + qp("a") + ["m_s", "m_zp"], ["m"], name="mul",
                         domain=ms),
        helper.make_node("QLinearAveragePool", qp("m") + ["p1_s", "p1_zp"], ["p1"], name="pool1",
                         domain=ms, kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("QLinearAveragePool", qp("a") + ["p2_s", "p2_zp"], ["p2"], name="pool2",
                         domain=ms, kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("QLinearConcat", ["cat_s", "cat_zp"] + qp("p1") + qp("p2"), ["cat"],
                         name="concat", domain=ms, axis=1),
        helper.make_node("QLinearGlobalAveragePool", qp("cat") + ["g_s", "g_zp"], ["g"],
                         name="gap", domain=ms, channels_last=0),
        helper.make_node("DequantizeLinear", qp("g"), ["y"], name="dequantize"),
    ]
    graph = helper.make_graph(
        nodes, "qoperator",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 16, 1, 1])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                    helper.make_opsetid(ms, 1)],
                              producer_name="mlfkit-test")
    save(model, model_path)

    t = {"xq": quantize(x, *q["xq"])}
    t["c1"] = qlinear_conv(t["xq"], *q["xq"], w1, w1s, b1, *q["c1"], pad=1)
    t["l"] = through_float(lambda v: np.where(v >= 0, v, np.float32(0.1) * v),
                           [(t["c1"], *q["c1"])], *q["l"])
    t["c2"] = qlinear_conv(t["l"], *q["l"], w2, w2s, b2, *q["c2"], pad=0)
    t["a"] = through_float(np.add, [(t["c2"], *q["c2"]), (t["l"], *q["l"])], *q["a"])
    t["sg"] = through_float(sigmoid, [(t["a"], *q["a"])], *q["sg"])
    t["m"] = through_float(np.multiply, [(t["sg"], *q["sg"]), (t["a"], *q["a"])], *q["m"])
    t["p1"] = through_float(avg_pool2, [(t["m"], *q["m"])], *q["p1"])
    t["p2"] = through_float(avg_pool2, [(t["a"], *q["a"])], *q["p2"])
    t["cat"] = through_float(lambda u, v: np.concatenate([u, v], axis=1),
                             [(t["p1"], *q["p1"]), (t["p2"], *q["p2"])], *q["cat"])
    t["g"] = through_float(lambda v: v.mean(axis=(2, 3), keepdims=True, dtype=np.float32),
                           [(t["cat"], *q["cat"])], *q["g"])
    y = dequantize(t["g"], *q["g"])
    np.save(input_path, x)
    np.save(expected_path, y.astype(np.float32))
    with open(step_path, "w") as f:
        f.write("%.9g\n" % q["g"][0])


if __name__ == "__main__":
    main(*sys.argv[1:])
