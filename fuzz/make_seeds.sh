#!/usr/bin/env bash
# Writes seed corpora for every fuzz target into OUT/<target>/ from valid
# inputs the project itself makes (nothing binary is committed):
#
#   archive_reader, verify  `mlf pack` of examples/tiny_dense (plain, gzip, zstd,
#                           signed with the fuzz test key), `mlf export` of the
#                           YAML examples, GNU tar re-packs of an unpacked
#                           archive (ustar, pax, gnu, v7; directories, a long
#                           name), and the TVM fixture archives (seed_gen tvm)
#   metadata                metadata.json of each archive, examples/tiny_dense's
#                           (no files table), artifact/format/testdata/example_metadata.json,
#                           the TVM fixtures' (versions 5-7)
#   tvm_params, npy         seed_gen (fuzz/seed_gen.cc)
#   tvm_graph               the TVM graph fixtures: graph JSON, NUL, .params
#   onnx                    every model.onnx of libonnx-testdata up to 256 KiB
#   yaml                    examples/*/model.yaml, fuzz/seeds/yaml/*.yaml and the
#                           example of docs/yaml-models.md
#
# usage: fuzz/make_seeds.sh OUT MLF SEED_GEN
#   MLF and SEED_GEN: paths of the `mlf` and `//fuzz:seed_gen` binaries
# Deterministic (SOURCE_DATE_EPOCH=0): the same tree gives the same seeds.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -ne 3 ]; then
  echo "usage: fuzz/make_seeds.sh OUT MLF SEED_GEN" >&2
  exit 2
fi
out=$1
mlf=$(readlink -f "$2")
seed_gen=$(readlink -f "$3")
repo=$(pwd)
export SOURCE_DATE_EPOCH=0 TZ=UTC LC_ALL=C

rm -rf "$out"
mkdir -p "$out"/{archive_reader,verify,metadata,tvm_params,tvm_graph,npy,onnx,yaml}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

quiet() { "$@" >/dev/null; }
archives=$work/archives
mkdir -p "$archives"

# --- archives made by mlf ---
cp -r examples/tiny_dense "$work/tiny_dense"
quiet "$mlf" pack "$work/tiny_dense" -o "$archives/tiny_dense.tar"
quiet "$mlf" pack "$work/tiny_dense" -o "$archives/tiny_dense.tar.gz" --compress gzip
quiet "$mlf" pack "$work/tiny_dense" -o "$archives/tiny_dense.tar.zst" --compress zstd
"$seed_gen" key "$work/fuzz.key"
quiet "$mlf" sign "$archives/tiny_dense.tar" --key "$work/fuzz.key" -o "$archives/tiny_dense_signed.tar"
quiet "$mlf" sign "$archives/tiny_dense.tar.gz" --key "$work/fuzz.key" -o "$archives/tiny_dense_signed.tar.gz"
quiet "$mlf" export examples/tiny_cnn/model.yaml -o "$archives/tiny_cnn.tar" --no-host-lib --keep-source
quiet "$mlf" export examples/tiny_cnn/model.yaml -o "$archives/tiny_cnn_linked.tar.zst" \
  --no-host-lib --link-params --compress zstd
quiet "$mlf" export examples/tiny_cnn/model.yaml:cnn fuzz/seeds/yaml/anchors.yaml:small \
  -o "$archives/two_modules.tar" --no-host-lib

# --- the same content re-packed by GNU tar: other header formats ---
quiet "$mlf" unpack "$archives/tiny_cnn.tar" -o "$work/unpacked"
members=(metadata.json codegen parameters src)
for format in ustar pax gnu v7; do
  tar --format=$format --owner=0 --group=0 --mtime=@0 --sort=name \
    -cf "$archives/gnutar_$format.tar" -C "$work/unpacked" "${members[@]}"
done
tar --format=pax --sort=name --mtime=@0 -cf - -C "$work/unpacked" "${members[@]}" \
  | gzip -n -9 >"$archives/gnutar_pax.tar.gz"
long=$work/long/$(printf 'd%.0s' {1..60})/$(printf 'n%.0s' {1..90})
mkdir -p "$(dirname "$long")"
echo "a member with a name over 100 bytes" >"$long"
ln -s ../metadata.json "$work/long/link"
for format in pax gnu; do
  tar --format=$format --mtime=@0 --sort=name -cf "$archives/long_names_$format.tar" \
    -C "$work/long" .
done

mkdir -p "$work/tvm"
quiet "$seed_gen" tvm "$work/tvm"
cp "$work"/tvm/*.tar "$archives/"

for a in "$archives"/*; do
  cp "$a" "$out/archive_reader/"
  cp "$a" "$out/verify/"
done

# --- metadata.json ---
for a in "$archives"/tiny_dense.tar "$archives"/tiny_dense_signed.tar "$archives"/tiny_cnn.tar \
         "$archives"/two_modules.tar; do
  tar -xOf "$a" metadata.json >"$out/metadata/$(basename "$a" .tar).json"
done
tar --zstd -xOf "$archives/tiny_cnn_linked.tar.zst" metadata.json >"$out/metadata/tiny_cnn_linked.json"
cp examples/tiny_dense/metadata.json "$out/metadata/for_packing.json"
cp artifact/format/testdata/example_metadata.json "$out/metadata/example_metadata.json"
cp "$work"/tvm/*.metadata.json "$out/metadata/"
cp "$work"/tvm/*.graph "$out/tvm_graph/"

# --- .params and .npy ---
quiet "$seed_gen" params "$out/tvm_params"
quiet "$seed_gen" npy "$out/npy"

# --- ONNX models ---
testdata=/usr/share/libonnx-testdata/data
if [ -d "$testdata" ]; then
  while IFS= read -r model; do
    rel=${model#"$testdata"/}
    cp "$model" "$out/onnx/$(dirname "$rel" | tr / _).onnx"
  done < <(find "$testdata" -name model.onnx -size -257k | sort)
fi

# --- YAML models ---
cp examples/mnist_mlp/model.yaml "$out/yaml/mnist_mlp.yaml"
cp examples/tiny_cnn/model.yaml "$out/yaml/tiny_cnn.yaml"
cp fuzz/seeds/yaml/*.yaml "$out/yaml/"
awk '/^```yaml/{on=1; next} /^```/{if (on) exit} on' docs/yaml-models.md >"$out/yaml/docs_example.yaml"

for t in "$out"/*; do
  echo "seeds: $(basename "$t"): $(find "$t" -type f | wc -l) files"
done
