"""Exports one benchmark model to ONNX: random weights, batch 1, static shapes.

usage: /usr/bin/python3 export_model.py MODEL OUT.onnx
MODEL: resnet18, mobilenet_v2, squeezenet1_1 (torchvision), mobilenet_v2_int8 (torchvision's
quantizable MobileNetV2, int8 QDQ), lenet5, mlp.

Weights come from a fixed seed (BatchNorm statistics from one random batch) and
the export runs on one thread, so the same PyTorch gives the same file each time
(Bazel caches it as a genrule output).
Every model has one input named "input" and one output named "output".
"""
import io
import sys

import torch
import torch.nn as nn

OPSET = 13
SEED = 0


class LeNet5(nn.Module):
    """LeNet-5 as LeCun et al. 1998 drew it, with ReLU and max pooling."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(),
            nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def mlp():
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                         nn.Linear(128, 10))


def torchvision_model(name):
    # Imported only here: the small models need no torchvision.
    import torchvision.models as models
    return getattr(models, name)(weights=None)


def quantized_mobilenet_v2():
    """torchvision's quantizable MobileNetV2, quantized the usual eager-mode
    way: fused, the qnnpack qconfig (per-tensor: Debian's PyTorch has no
    fbgemm), calibrated on random batches, converted. Its ONNX export is QDQ:
    QuantizeLinear/DequantizeLinear around float operators, int8 weights."""
    from torchvision.models.quantization import mobilenet_v2
    torch.backends.quantized.engine = "qnnpack"
    model = mobilenet_v2(weights=None, quantize=False)
    calibrate_batch_norm(model, (1, 3, 224, 224))
    model.eval()
    model.fuse_model()
    model.qconfig = torch.quantization.get_default_qconfig("qnnpack")
    torch.quantization.prepare(model, inplace=True)
    with torch.no_grad():
        for _ in range(4):
            model(torch.randn(2, 3, 224, 224))
    torch.quantization.convert(model, inplace=True)
    return model


# name -> (constructor, input shape)
MODELS = {
    "resnet18": (lambda: torchvision_model("resnet18"), (1, 3, 224, 224)),
    "mobilenet_v2": (lambda: torchvision_model("mobilenet_v2"), (1, 3, 224, 224)),
    "squeezenet1_1": (lambda: torchvision_model("squeezenet1_1"), (1, 3, 224, 224)),
    "mobilenet_v2_int8": (quantized_mobilenet_v2, (1, 3, 224, 224)),
    "lenet5": (LeNet5, (1, 1, 32, 32)),
    "mlp": (mlp, (1, 784)),
}


def calibrate_batch_norm(model, shape):
    """Sets every BatchNorm's statistics from one batch of random inputs, as
    training would. With torchvision's initial statistics (mean 0, variance
    1) MobileNetV2's activations shrink about tenfold per block and its
    outputs end near 1e-9, where atol 1e-4 would accept any result."""
    norms = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    for m in norms:
        m.reset_running_stats()
        m.momentum = None  # a cumulative average: exactly this batch's statistics
    model.train()
    with torch.no_grad():
        model(torch.randn((4,) + tuple(shape[1:])))


def export(name, path):
    make, shape = MODELS[name]
    torch.manual_seed(SEED)
    model = make()
    if not name.endswith("_int8"):  # a quantized model was calibrated before converting
        calibrate_batch_norm(model, shape)
    model.eval()
    buffer = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(model, torch.zeros(shape), buffer, opset_version=OPSET,
                          input_names=["input"], output_names=["output"],
                          do_constant_folding=True)
    with open(path, "wb") as f:
        f.write(buffer.getvalue())


def main(argv):
    if len(argv) != 3 or argv[1] not in MODELS:
        sys.stderr.write("usage: export_model.py MODEL OUT.onnx (MODEL: %s)\n" % ", ".join(MODELS))
        return 2
    torch.set_num_threads(1)
    export(argv[1], argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
