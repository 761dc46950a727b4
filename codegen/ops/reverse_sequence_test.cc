// ReverseSequence: the ONNX documentation examples through evaluate, the
// generated C against evaluate (lengths out of range clamped), and errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;

OpTest Reverse(DType d, const Shape& shape, int64_t time_axis, int64_t batch_axis, DType lens = DType::kInt64) {
  OpTest t("ReverseSequence", "rs");
  t.Input("x", d, shape);
  t.Input("sequence_lens", lens, {shape.size() > 1 ? shape[static_cast<size_t>(batch_axis)] : 1});
  t.Output("y");
  t.Attr("time_axis", time_axis);
  t.Attr("batch_axis", batch_axis);
  return t;
}

std::vector<double> Evaluated(OpTest& t, const std::vector<HostTensor>& in) {
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate(in);
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  return y.ok() ? Values((*y)[0]) : std::vector<double>{};
}

TEST(ReverseSequence, DocumentationExamples) {
  // test_reversesequence_time: [4, 4], time_axis 0, lengths 4, 3, 2, 1.
  OpTest time = Reverse(DType::kFloat32, {4, 4}, 0, 1);
  const HostTensor x = MakeTensor(DType::kFloat32, {4, 4}, {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15});
  EXPECT_EQ(Evaluated(time, {x, Int64s({4, 3, 2, 1})}),
            (std::vector<double>{3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15}));
  // test_reversesequence_batch: time_axis 1, lengths 1, 2, 3, 4.
  OpTest batch = Reverse(DType::kFloat32, {4, 4}, 1, 0);
  const HostTensor xb = MakeTensor(DType::kFloat32, {4, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  EXPECT_EQ(Evaluated(batch, {xb, Int64s({1, 2, 3, 4})}),
            (std::vector<double>{0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12}));
}

TEST(ReverseSequence, GeneratedMatchesReference) {
  struct Case {
    DType d;
    Shape shape;
    int64_t time_axis, batch_axis;
    DType lens;
  };
  const Case cases[] = {
      {DType::kFloat32, {5, 3}, 0, 1, DType::kInt64},
      {DType::kInt8, {3, 6, 2, 2}, 1, 0, DType::kInt64},
      {DType::kFloat64, {4, 2, 3}, 0, 1, DType::kInt32},
      {DType::kBool, {2, 7}, 1, 0, DType::kInt64},
  };
  uint64_t seed = 40;
  for (const Case& c : cases) {
    OpTest t = Reverse(c.d, c.shape, c.time_axis, c.batch_axis, c.lens);
    const int64_t steps = c.shape[static_cast<size_t>(c.time_axis)], batch = c.shape[static_cast<size_t>(c.batch_axis)];
    HostTensor lens = HostTensor::Zeros(c.lens, {batch});
    // In range, 0, beyond T and negative (clamped).
    for (int64_t b = 0; b < batch; ++b) lens.SetDouble(static_cast<uint64_t>(b), static_cast<double>((b * 3 + seed) % (steps + 3)) - 1);
    SCOPED_TRACE(std::string(DTypeName(c.d)) + FormatShape(c.shape));
    ExpectGeneratedMatches(t, {RandomTensor(c.d, c.shape, seed++), lens}, 0, seed % 2 == 0);
  }
  // Clamped lengths: -2 reverses nothing, 9 reverses all 3 steps.
  OpTest t = Reverse(DType::kInt32, {3, 2}, 0, 1);
  const std::vector<HostTensor> in = {MakeTensor(DType::kInt32, {3, 2}, {1, 2, 3, 4, 5, 6}), Int64s({-2, 9})};
  EXPECT_EQ(Evaluated(t, in), (std::vector<double>{1, 6, 3, 4, 5, 2}));
  ExpectGeneratedMatches(t, in);
}

TEST(ReverseSequence, Errors) {
  OpTest axes = Reverse(DType::kFloat32, {4, 4}, 0, 0);
  EXPECT_EQ(InferError(axes), "node 'rs' (ReverseSequence): time_axis 0 and batch_axis 0 are invalid (0 and 1, or 1 and 0)");
  OpTest lens = Reverse(DType::kFloat32, {4, 4}, 0, 1, DType::kFloat32);
  EXPECT_EQ(InferError(lens), "node 'rs' (ReverseSequence): input 1 (sequence_lens) must be int32 or int64, got float32");
  OpTest shape("ReverseSequence", "rs");
  shape.Input("x", DType::kFloat32, {4, 3});
  shape.Input("sequence_lens", DType::kInt64, {4});
  shape.Output("y");
  EXPECT_EQ(InferError(shape), "node 'rs' (ReverseSequence): input 1 (sequence_lens) has shape [4], expected [3]");
  OpTest rank("ReverseSequence", "rs");
  rank.Input("x", DType::kFloat32, {4});
  rank.Input("sequence_lens", DType::kInt64, {4});
  rank.Output("y");
  EXPECT_EQ(InferError(rank), "node 'rs' (ReverseSequence): input 0 (input) must have rank 2 or more, got shape [4]");
}

}  // namespace
}  // namespace mlf::ops::testing
