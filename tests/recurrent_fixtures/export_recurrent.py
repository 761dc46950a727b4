"""Two-layer recurrent sequence models as PyTorch users write them, exported
to ONNX, with PyTorch's own outputs: the fixtures of
tests/recurrent_cli_test.cc (issue 15).

usage: /usr/bin/python3 export_recurrent.py CELL MODEL.onnx INPUT.npy EXPECTED_Y.npy EXPECTED_H.npy

CELL is GRU or LSTM. The model: a bidirectional layer (8 -> 2 x 16), a
forward layer (32 -> 12), both batch_first, then a linear layer on the last
step; outputs y (the linear layer's, [batch, 4]) and h (the second layer's
final hidden state, [1, batch, 12]). Random weights from a fixed seed,
torch.onnx.export at opset 17 (torch writes ONNX GRU/LSTM nodes, GRU with
linear_before_reset=1, and Transpose/Squeeze/Concat around them). The input
is [2, 10, 8] (batch 2, 10 steps).
"""
import io
import sys

import numpy as np
import torch
import torch.nn as nn

SEED = 0


class Sequence(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.first = cell(8, 16, batch_first=True, bidirectional=True)
        self.second = cell(32, 12, batch_first=True)
        self.fc = nn.Linear(12, 4)

    def forward(self, x):
        y, _ = self.first(x)
        y, state = self.second(y)
        h = state[0] if isinstance(state, tuple) else state  # LSTM: (h, c)
        return self.fc(y[:, -1]), h


def main(cell, model_path, input_path, expected_y_path, expected_h_path):
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    model = Sequence({"GRU": nn.GRU, "LSTM": nn.LSTM}[cell]).eval()
    x = torch.randn(2, 10, 8)
    with torch.no_grad():
        y, h = model(x)
    f = io.BytesIO()
    torch.onnx.export(model, x, f, opset_version=17, input_names=["x"], output_names=["y", "h"])
    with open(model_path, "wb") as out:
        out.write(f.getvalue())
    np.save(input_path, x.numpy().astype(np.float32))
    np.save(expected_y_path, y.numpy().astype(np.float32))
    np.save(expected_h_path, h.numpy().astype(np.float32))


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(*sys.argv[1:])
