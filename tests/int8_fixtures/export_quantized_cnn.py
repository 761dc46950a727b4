"""A small CNN quantized the way PyTorch users do it, exported to ONNX, with
PyTorch's own int8 result: the fixture of tests/int8_cli_test.cc.

usage: /usr/bin/python3 export_quantized_cnn.py MODEL.onnx INPUT.npy EXPECTED.npy STEP.txt

Eager-mode static quantization: QuantStub/DeQuantStub around conv+relu
(fused), max pool and linear, the 'qnnpack' engine and qconfig (per-tensor),
calibrated on random data from a fixed seed, then torch.onnx.export at opset
13. Torch 1.13 exports the quantized modules as QuantizeLinear/
DequantizeLinear around float Conv/Relu/MaxPool/Gemm (QDQ), with int8 weights
and int32 biases behind DequantizeLinear.

EXPECTED.npy is the quantized model's output on INPUT.npy (float32, the
dequantized int8 result); STEP.txt holds the output's quantization step (its
scale), against which the test measures differences.
"""
import io
import sys

import numpy as np
import torch
import torch.nn as nn

SEED = 0
BATCH = 4  # four images per run: more output elements to compare


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = torch.quantization.QuantStub()
        self.conv = nn.Conv2d(1, 8, 3, padding=1)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 6 * 6, 10)
        self.dequant = torch.quantization.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.pool(self.relu(self.conv(x)))
        x = torch.flatten(x, 1)
        x = self.fc(x)
        return self.dequant(x)


def main(model_path, input_path, expected_path, step_path):
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    torch.backends.quantized.engine = "qnnpack"
    model = Net().eval()
    model.qconfig = torch.quantization.get_default_qconfig("qnnpack")
    model = torch.quantization.fuse_modules(model, [["conv", "relu"]])
    torch.quantization.prepare(model, inplace=True)
    with torch.no_grad():
        for _ in range(16):
            model(torch.randn(BATCH, 1, 12, 12))
    torch.quantization.convert(model, inplace=True)
    x = torch.randn(BATCH, 1, 12, 12)
    with torch.no_grad():
        y = model(x)
    buffer = io.BytesIO()
    torch.onnx.export(model, x, buffer, opset_version=13, input_names=["input"],
                      output_names=["output"])
    with open(model_path, "wb") as f:
        f.write(buffer.getvalue())
    np.save(input_path, x.numpy().astype(np.float32))
    np.save(expected_path, y.numpy().astype(np.float32))
    with open(step_path, "w") as f:
        f.write("%.9g\n" % model.fc.scale)


if __name__ == "__main__":
    main(*sys.argv[1:])
