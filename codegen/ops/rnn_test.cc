// RNN, GRU, LSTM: hand-computed steps through evaluate, the generated C
// against evaluate over kinds, directions, layouts, sequence lengths,
// initial states, peepholes, clip and linear_before_reset, and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;

struct Spec {
  std::string op = "RNN";
  DType dtype = DType::kFloat32;
  int64_t seq = 1, batch = 1, input = 1, hidden = 1;
  std::string direction = "forward";
  bool layout1 = false, bias = false, lens = false, h0 = false, c0 = false, peep = false;
  double clip = 0;
  int64_t linear_before_reset = 0;
  std::vector<std::string> activations;
};

int64_t Gates(const Spec& s) { return s.op == "GRU" ? 3 : s.op == "LSTM" ? 4 : 1; }
int64_t Dirs(const Spec& s) { return s.direction == "bidirectional" ? 2 : 1; }

// The node with every input a graph input (omitted ones as ONNX omits them)
// and outputs Y, Y_h (, Y_c); `inputs` receives random values for them.
OpTest Make(const Spec& s, uint64_t seed, std::vector<HostTensor>* inputs) {
  OpTest t(s.op, "rnn");
  const int64_t dirs = Dirs(s), gh = Gates(s) * s.hidden;
  const Shape x = s.layout1 ? Shape{s.batch, s.seq, s.input} : Shape{s.seq, s.batch, s.input};
  const Shape state = s.layout1 ? Shape{s.batch, dirs, s.hidden} : Shape{dirs, s.batch, s.hidden};
  auto add = [&](const char* name, DType d, const Shape& shape) {
    t.Input(name, d, shape);
    inputs->push_back(RandomTensor(d, shape, seed++));
  };
  add("X", s.dtype, x);
  add("W", s.dtype, {dirs, gh, s.input});
  add("R", s.dtype, {dirs, gh, s.hidden});
  const bool lstm = s.op == "LSTM";
  const size_t last = s.peep ? 7 : s.c0 ? 6 : s.h0 ? 5 : s.lens ? 4 : s.bias ? 3 : 2;
  if (last >= 3) {
    if (s.bias) add("B", s.dtype, {dirs, 2 * gh});
    else t.OmittedInput();
  }
  if (last >= 4) {
    if (s.lens) {
      t.Input("sequence_lens", DType::kInt32, {s.batch});
      HostTensor lens = HostTensor::Zeros(DType::kInt32, {s.batch});
      for (int64_t b = 0; b < s.batch; ++b) lens.SetDouble(static_cast<uint64_t>(b), static_cast<double>((b * 2 + seed) % (s.seq + 2)) - 1);
      inputs->push_back(lens);
    } else {
      t.OmittedInput();
    }
  }
  if (last >= 5) {
    if (s.h0) add("initial_h", s.dtype, state);
    else t.OmittedInput();
  }
  if (lstm && last >= 6) {
    if (s.c0) add("initial_c", s.dtype, state);
    else t.OmittedInput();
  }
  if (lstm && last >= 7) add("P", s.dtype, {dirs, 3 * s.hidden});
  t.Output("Y");
  t.Output("Y_h");
  if (lstm) t.Output("Y_c");
  t.Attr("hidden_size", s.hidden);
  if (s.direction != "forward") t.Attr("direction", s.direction);
  if (s.layout1) t.Attr("layout", int64_t{1});
  if (s.clip > 0) t.Attr("clip", s.clip);
  if (s.linear_before_reset != 0) t.Attr("linear_before_reset", s.linear_before_reset);
  if (!s.activations.empty()) t.Attr("activations", s.activations);
  return t;
}

std::vector<HostTensor> Evaluated(OpTest& t, const std::vector<HostTensor>& in) {
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate(in);
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  return y.ok() ? *y : std::vector<HostTensor>{};
}

HostTensor F(const Shape& shape, const std::vector<double>& v) { return MakeTensor(DType::kFloat32, shape, v); }

TEST(Recurrent, HandComputedSteps) {
  // RNN, two steps of one unit: H1 = tanh(0.5 * 1), H2 = tanh(0.5 * 2 + 0.25 * H1 + 0.1 + 0.2).
  {
    OpTest t("RNN");
    t.Input("X", DType::kFloat32, {2, 1, 1});
    t.Input("W", DType::kFloat32, {1, 1, 1});
    t.Input("R", DType::kFloat32, {1, 1, 1});
    t.Input("B", DType::kFloat32, {1, 2});
    t.Output("Y");
    t.Output("Y_h");
    auto y = Evaluated(t, {F({2, 1, 1}, {1, 2}), F({1, 1, 1}, {0.5}), F({1, 1, 1}, {0.25}), F({1, 2}, {0.1, 0.2})});
    ASSERT_EQ(y.size(), 2u);
    const double h1 = std::tanh(0.5 + 0.3), h2 = std::tanh(1.0 + 0.25 * h1 + 0.3);
    EXPECT_NEAR(Values(y[0])[0], h1, 1e-6);
    EXPECT_NEAR(Values(y[0])[1], h2, 1e-6);
    EXPECT_NEAR(Values(y[1])[0], h2, 1e-6);
    EXPECT_EQ(y[0].shape, (Shape{2, 1, 1, 1}));
  }
  // GRU with zero weights: z = r = 0.5, h = tanh(0) = 0, H = 0.5 * H0.
  {
    OpTest t("GRU");
    t.Input("X", DType::kFloat32, {1, 1, 1});
    t.Input("W", DType::kFloat32, {1, 3, 1});
    t.Input("R", DType::kFloat32, {1, 3, 1});
    t.OmittedInput();
    t.OmittedInput();
    t.Input("initial_h", DType::kFloat32, {1, 1, 1});
    t.Output("Y");
    t.Output("Y_h");
    auto y = Evaluated(t, {F({1, 1, 1}, {3}), F({1, 3, 1}, {0, 0, 0}), F({1, 3, 1}, {0, 0, 0}), F({1, 1, 1}, {2})});
    ASSERT_EQ(y.size(), 2u);
    EXPECT_NEAR(Values(y[1])[0], 1.0, 1e-6);
  }
  // LSTM with zero weights: i = f = o = 0.5, c = 0, C = 0.5 * C0, H = 0.5 * tanh(C).
  {
    OpTest t("LSTM");
    t.Input("X", DType::kFloat32, {1, 1, 1});
    t.Input("W", DType::kFloat32, {1, 4, 1});
    t.Input("R", DType::kFloat32, {1, 4, 1});
    t.OmittedInput();
    t.OmittedInput();
    t.OmittedInput();
    t.Input("initial_c", DType::kFloat32, {1, 1, 1});
    t.Output("Y");
    t.Output("Y_h");
    t.Output("Y_c");
    auto y = Evaluated(t, {F({1, 1, 1}, {3}), F({1, 4, 1}, {0, 0, 0, 0}), F({1, 4, 1}, {0, 0, 0, 0}), F({1, 1, 1}, {2})});
    ASSERT_EQ(y.size(), 3u);
    EXPECT_NEAR(Values(y[2])[0], 1.0, 1e-6);
    EXPECT_NEAR(Values(y[1])[0], 0.5 * std::tanh(1.0), 1e-6);
  }
}

// sequence_lens: steps beyond a sequence's length leave Y at 0 and Y_h at
// the last step's state; a reverse direction starts at its last step.
TEST(Recurrent, SequenceLengths) {
  OpTest t("RNN");
  t.Input("X", DType::kFloat32, {3, 2, 1});
  t.Input("W", DType::kFloat32, {2, 1, 1});
  t.Input("R", DType::kFloat32, {2, 1, 1});
  t.OmittedInput();
  t.Input("sequence_lens", DType::kInt32, {2});
  t.Output("Y");
  t.Output("Y_h");
  t.Attr("direction", std::string("bidirectional"));
  t.Attr("activations", std::vector<std::string>{"Relu", "Relu"});
  // Relu with W = 1, R = 1: a running sum. Batch 0 has length 2, batch 1 length 0.
  const std::vector<HostTensor> in = {F({3, 2, 1}, {1, 10, 2, 20, 4, 40}), F({2, 1, 1}, {1, 1}), F({2, 1, 1}, {1, 1}),
                                      MakeTensor(DType::kInt32, {2}, {2, 0})};
  auto y = Evaluated(t, in);
  ASSERT_EQ(y.size(), 2u);
  // Y [seq, dirs, batch, 1]: forward 1, 3 then 0; reverse (from t = 1) 3 at t = 0, 2 at t = 1.
  EXPECT_EQ(Values(y[0]), (std::vector<double>{1, 0, 3, 0, 3, 0, 2, 0, 0, 0, 0, 0}));
  EXPECT_EQ(Values(y[1]), (std::vector<double>{3, 0, 3, 0}));
  ExpectGeneratedMatches(t, in, 1e-6);
}

TEST(Recurrent, GeneratedMatchesReference) {
  std::vector<Spec> specs;
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    for (const char* direction : {"forward", "reverse", "bidirectional"}) {
      Spec s;
      s.op = op;
      s.direction = direction;
      s.seq = 3, s.batch = 2, s.input = 4, s.hidden = 3;
      specs.push_back(s);
      s.bias = s.h0 = true;
      s.layout1 = true;
      specs.push_back(s);
      s.lens = true;
      s.c0 = s.peep = std::string(op) == "LSTM";
      s.clip = 0.8;
      s.linear_before_reset = 1;
      s.dtype = DType::kFloat64;
      specs.push_back(s);
    }
  }
  Spec gru;
  gru.op = "GRU";
  gru.seq = 4, gru.batch = 3, gru.input = 2, gru.hidden = 5;
  gru.bias = gru.lens = true;
  gru.activations = {"Relu", "Sigmoid"};
  specs.push_back(gru);
  Spec empty;  // seq 0: the states are the initial ones
  empty.op = "LSTM";
  empty.seq = 0, empty.batch = 2, empty.hidden = 2;
  empty.h0 = empty.c0 = true;
  specs.push_back(empty);
  uint64_t seed = 500;
  for (const Spec& s : specs) {
    std::vector<HostTensor> in;
    OpTest t = Make(s, seed, &in);
    SCOPED_TRACE(s.op + " " + s.direction + " layout " + std::to_string(s.layout1) + " lens " + std::to_string(s.lens) +
                 " " + DTypeName(s.dtype));
    ExpectGeneratedMatches(t, in, 1e-5, seed % 4 == 0);
    seed += 10;
  }
}

TEST(Recurrent, Errors) {
  auto error = [](Spec s, const std::function<void(OpTest&)>& change = nullptr) {
    std::vector<HostTensor> in;
    OpTest t = Make(s, 1, &in);
    if (change) change(t);
    return InferError(t);
  };
  Spec s;
  s.op = "GRU";
  s.seq = 2, s.batch = 1, s.input = 3, s.hidden = 2;
  const std::string gru = "node 'rnn' (GRU): ";
  EXPECT_EQ(error(s, [](OpTest& t) { t.Attr("direction", std::string("both")); }),
            gru + "direction 'both' is invalid (forward, reverse, bidirectional)");
  EXPECT_EQ(error(s, [](OpTest& t) { t.Attr("hidden_size", int64_t{4}); }),
            gru + "hidden_size 4 does not match input 2 (R) of shape [1, 6, 2]");
  EXPECT_EQ(error(s, [](OpTest& t) { t.Attr("activations", std::vector<std::string>{"Sigmoid", "Elu"}); }),
            gru + "activation 'Elu' is not supported (Sigmoid, Tanh, Relu)");
  EXPECT_EQ(error(s, [](OpTest& t) { t.Attr("activations", std::vector<std::string>{"Sigmoid"}); }),
            gru + "attribute 'activations' has 1 names, expected 2 (2 per direction)");
  EXPECT_EQ(error(s, [](OpTest& t) { t.Attr("layout", int64_t{2}); }), gru + "layout 2 is invalid (0 or 1)");
  EXPECT_EQ(error(s, [](OpTest& t) { t.Attr("clip", 0.0); }), gru + "clip 0.000000 is not positive");
  Spec lstm = s;
  lstm.op = "LSTM";
  EXPECT_EQ(error(lstm, [](OpTest& t) { t.Attr("input_forget", int64_t{1}); }),
            "node 'rnn' (LSTM): input_forget=1 is not supported");

  OpTest w("RNN", "rnn");
  w.Input("X", DType::kFloat32, {2, 1, 3});
  w.Input("W", DType::kFloat32, {1, 2, 4});
  w.Input("R", DType::kFloat32, {1, 2, 2});
  w.Output("Y");
  EXPECT_EQ(InferError(w), "node 'rnn' (RNN): input 1 (W) has shape [1, 2, 4], expected [1, 2, 3]");

  OpTest x("RNN", "rnn");
  x.Input("X", DType::kFloat32, {2, 3});
  x.Input("W", DType::kFloat32, {1, 2, 3});
  x.Input("R", DType::kFloat32, {1, 2, 2});
  x.Output("Y");
  EXPECT_EQ(InferError(x), "node 'rnn' (RNN): input 0 (X) must have rank 3, got shape [2, 3]");

  OpTest d("RNN", "rnn");
  d.Input("X", DType::kInt32, {2, 1, 3});
  d.Input("W", DType::kInt32, {1, 2, 3});
  d.Input("R", DType::kInt32, {1, 2, 2});
  d.Output("Y");
  EXPECT_EQ(InferError(d), "node 'rnn' (RNN): input 0 (X) has dtype int32; supported: float32, float64");

  OpTest lens("RNN", "rnn");
  lens.Input("X", DType::kFloat32, {2, 1, 3});
  lens.Input("W", DType::kFloat32, {1, 2, 3});
  lens.Input("R", DType::kFloat32, {1, 2, 2});
  lens.OmittedInput();
  lens.Input("sequence_lens", DType::kFloat32, {1});
  lens.Output("Y");
  EXPECT_EQ(InferError(lens), "node 'rnn' (RNN): input 4 (sequence_lens) must be int32 or int64, got float32");

  OpTest h0("RNN", "rnn");
  h0.Input("X", DType::kFloat32, {2, 1, 3});
  h0.Input("W", DType::kFloat32, {1, 2, 3});
  h0.Input("R", DType::kFloat32, {1, 2, 2});
  h0.OmittedInput();
  h0.OmittedInput();
  h0.Input("initial_h", DType::kFloat32, {1, 2, 2});
  h0.Output("Y");
  EXPECT_EQ(InferError(h0), "node 'rnn' (RNN): input 5 (initial_h) has shape [1, 2, 2], expected [1, 1, 2]");

  OpTest mixed("RNN", "rnn");
  mixed.Input("X", DType::kFloat32, {2, 1, 3});
  mixed.Input("W", DType::kFloat64, {1, 2, 3});
  mixed.Input("R", DType::kFloat32, {1, 2, 2});
  mixed.Output("Y");
  EXPECT_EQ(InferError(mixed), "node 'rnn' (RNN): input 1 has dtype float64, expected float32 as X");
}

}  // namespace
}  // namespace mlf::ops::testing
