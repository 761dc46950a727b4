#!/usr/bin/env bash
# mlf_model's library, linked into static_model, computes what `mlf run` of the
# same archive computes (bit for bit) on the input static_model makes: element
# k = (k % 17) * 0.125 - 1.
set -euo pipefail
here=${RUNFILES_DIR:-$0.runfiles}/${TEST_WORKSPACE:-mlfkit}
tmp=${TEST_TMPDIR:-$(mktemp -d)}
"$here/sdk/bazel/static_model" > "$tmp/got.txt"
/usr/bin/python3 - "$tmp/input.npy" <<'PY'
import sys, numpy as np
k = np.arange(64)
np.save(sys.argv[1], ((k % 17) * 0.125 - 1.0).astype(np.float32).reshape(1, 1, 8, 8))
PY
"$here/tools/mlf/mlf" run "$here/sdk/bazel/tiny_cnn_model.tar" --input image="$tmp/input.npy" \
  --output-dir "$tmp/want" > /dev/null
/usr/bin/python3 - "$tmp/want/logits.npy" "$tmp/got.txt" <<'PY'
import sys, numpy as np
want = np.load(sys.argv[1]).ravel()
got = np.array([float(line) for line in open(sys.argv[2])], dtype=np.float32)
assert got.shape == want.shape, (got.shape, want.shape)
assert np.array_equal(got, want), np.abs(got - want).max()
print("mlf_model: %d outputs equal mlf run's" % got.size)
PY
