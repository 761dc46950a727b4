"""Models people export every day, exported by Debian's PyTorch with random
weights, with PyTorch's own outputs: the fixtures of
tests/pytorch_export_cli_test.cc (issue 15).

usage: /usr/bin/python3 export_models.py OUT_DIR

Writes into OUT_DIR, for each model M: M.onnx, M_input.npy, M_expected.npy.
  transformer  torch.nn.TransformerEncoderLayer (batch-first, sequence 16,
               d_model 64, 4 heads, feed-forward 128), opset 17: its
               LayerNormalization is an ONNX operator from opset 17 on. It is
               exported with gradients enabled: inside torch.no_grad() torch
               1.13 takes a fused fast path that has no ONNX export.
  dynamic_cnn  a small CNN (conv, batch norm, ReLU, pool, linear) exported
               with a symbolic batch axis ("batch"), opset 13; the input and
               expected output hold a batch of 3, which the test fixes with
               mlf export --input-shape.
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn

SEED = 0


def transformer():
    layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0,
                                       batch_first=True).eval()
    return layer, torch.randn(1, 16, 64), dict(opset_version=17)


def dynamic_cnn():
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8 * 8 * 8, 10)).eval()
    return model, torch.randn(3, 3, 16, 16), dict(
        opset_version=13, dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})


MODELS = {"transformer": transformer, "dynamic_cnn": dynamic_cnn}


def main(out_dir):
    torch.set_num_threads(1)
    for name, make in MODELS.items():
        torch.manual_seed(SEED)
        model, x, options = make()
        torch.onnx.export(model, x, os.path.join(out_dir, name + ".onnx"),
                          input_names=["input"], output_names=["output"], **options)
        with torch.no_grad():
            y = model(x)
        np.save(os.path.join(out_dir, name + "_input.npy"), x.numpy())
        np.save(os.path.join(out_dir, name + "_expected.npy"), y.numpy())


if __name__ == "__main__":
    main(*sys.argv[1:])
