"""LeNet-5 quantized per channel the way PyTorch users do it on x86, exported
to ONNX, with PyTorch's own int8 result: a fixture of
tests/int8_pytorch_models_test.cc and tests/int8_firmware_test.cc (issue 14).

usage: /usr/bin/python3 export_quantized_lenet5.py MODEL.onnx INPUT.npy EXPECTED.npy STEP.txt

LeNet-5 (conv 6 5x5, ReLU, max pool 2; conv 16 5x5, ReLU, max pool 2; linear
400 -> 120 -> 84 -> 10 with ReLUs) on a 1x32x32 input, random weights from a
fixed seed. Eager-mode static quantization with the per-channel qconfig of
x86 CPUs: weights per output channel (symmetric int8), activations per
tensor (uint8, histogram observer). Debian's PyTorch 1.13 has no 'fbgemm'
and no 'x86' engine, so the engine and qconfig are 'onednn' (the same
per-channel weight observer; activations without x86's reduce_range, which
exists only for fbgemm's VNNI-less overflow). Calibrated on random data,
then torch.onnx.export at opset 13 (QDQ, per-axis DequantizeLinear on the
weights).

EXPECTED.npy is the quantized model's output on INPUT.npy (float32, the
dequantized result); STEP.txt holds the output's quantization step.
"""
import io
import sys

import numpy as np
import torch
import torch.nn as nn

SEED = 0
BATCH = 4  # four images per run: four argmaxes, 40 output elements
ENGINE = "onednn"


class QuantizableLeNet5(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = torch.quantization.QuantStub()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.relu1 = nn.ReLU()
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.relu2 = nn.ReLU()
        self.pool2 = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.relu3 = nn.ReLU()
        self.fc2 = nn.Linear(120, 84)
        self.relu4 = nn.ReLU()
        self.fc3 = nn.Linear(84, 10)
        self.dequant = torch.quantization.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.pool1(self.relu1(self.conv1(x)))
        x = self.pool2(self.relu2(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = self.relu3(self.fc1(x))
        x = self.relu4(self.fc2(x))
        return self.dequant(self.fc3(x))


def main(model_path, input_path, expected_path, step_path):
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    torch.backends.quantized.engine = ENGINE
    model = QuantizableLeNet5().eval()
    model.qconfig = torch.quantization.get_default_qconfig(ENGINE)
    # Linear+ReLU stay apart: torch 1.13 cannot export quantized::linear_relu.
    model = torch.quantization.fuse_modules(
        model, [["conv1", "relu1"], ["conv2", "relu2"]])
    torch.quantization.prepare(model, inplace=True)
    with torch.no_grad():
        for _ in range(16):
            model(torch.randn(BATCH, 1, 32, 32))
    torch.quantization.convert(model, inplace=True)
    x = torch.randn(BATCH, 1, 32, 32)
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
        f.write("%.9g\n" % model.fc3.scale)


if __name__ == "__main__":
    main(*sys.argv[1:])
