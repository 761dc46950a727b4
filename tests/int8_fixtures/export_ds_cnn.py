"""The MLPerf Tiny keyword-spotting DS-CNN, quantized the way PyTorch users do
it and exported to ONNX, with the same network in float: the fixture of the
firmware's instruction counts (tests/firmware_icount_test.cc,
loader/firmware/README.md "Instructions per inference").

usage: /usr/bin/python3 export_ds_cnn.py INT8.onnx FLOAT.onnx INPUT.npy EXPECTED.npy STEP.txt

The network (MLPerf Tiny KWS): a 1x1x49x10 MFCC input; conv 64 10x4 stride 2
(padding 5x1: TensorFlow's 'same' output, 25x5), batch norm, ReLU; four
blocks of depthwise 3x3 (64 channels, padding 1) + BN + ReLU and pointwise
1x1 64 + BN + ReLU; average pooling over the 25x5 map; fully connected 12.
2,656,768 multiply-accumulates.

Random weights from a fixed seed (and random batch-norm statistics, so that
folding them is not trivial). INT8.onnx: eager-mode static quantization
(conv+bn+relu fused, the 'qnnpack' qconfig, per-tensor), calibrated on random
data, torch.onnx.export at opset 13 (QDQ). FLOAT.onnx: the float network
before quantization, batch norm folded by the fusion, opset 13. EXPECTED.npy
is the int8 model's output on INPUT.npy (float32, dequantized); STEP.txt
holds the output's quantization step (tests/int8_pytorch_models_test.cc,
tests/int8_firmware_test.cc).
"""
import copy
import io
import sys

import numpy as np
import torch
import torch.nn as nn

SEED = 0


def conv_bn_relu(cin, cout, kernel, stride, padding, groups=1):
    return nn.Sequential(
        nn.Conv2d(cin, cout, kernel, stride=stride, padding=padding, groups=groups, bias=False),
        nn.BatchNorm2d(cout), nn.ReLU())


class DsCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = torch.quantization.QuantStub()
        layers = [conv_bn_relu(1, 64, (10, 4), 2, (5, 1))]
        for _ in range(4):
            layers.append(conv_bn_relu(64, 64, 3, 1, 1, groups=64))
            layers.append(conv_bn_relu(64, 64, 1, 1, 0))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AvgPool2d((25, 5))
        self.fc = nn.Linear(64, 12)
        self.dequant = torch.quantization.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.pool(self.features(x))
        x = torch.flatten(x, 1)
        x = self.fc(x)
        return self.dequant(x)

    def fuse(self):
        for block in self.features:
            torch.quantization.fuse_modules(block, [["0", "1", "2"]], inplace=True)


def export(model, x, path):
    buffer = io.BytesIO()
    torch.onnx.export(model, x, buffer, opset_version=13, input_names=["input"],
                      output_names=["output"])
    with open(path, "wb") as f:
        f.write(buffer.getvalue())


def main(int8_path, float_path, input_path, expected_path, step_path):
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    torch.backends.quantized.engine = "qnnpack"
    model = DsCnn().eval()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.1, 0.1)
    model.fuse()
    x = torch.randn(1, 1, 49, 10)
    export(model, x, float_path)

    quantized = copy.deepcopy(model)
    quantized.qconfig = torch.quantization.get_default_qconfig("qnnpack")
    torch.quantization.prepare(quantized, inplace=True)
    with torch.no_grad():
        for _ in range(32):
            quantized(torch.randn(1, 1, 49, 10))
    torch.quantization.convert(quantized, inplace=True)
    with torch.no_grad():
        y = quantized(x)
    export(quantized, x, int8_path)
    np.save(input_path, x.numpy().astype(np.float32))
    np.save(expected_path, y.numpy().astype(np.float32))
    with open(step_path, "w") as f:
        f.write("%.9g\n" % quantized.fc.scale)


if __name__ == "__main__":
    main(*sys.argv[1:])
