// DFT and STFT: hand-computed transforms, the ONNX backend cases' values
// (test_dft, test_dft_axis, test_dft_inverse, test_stft, test_stft_with_window),
// evaluate against a naive std::complex reference (std::polar, no table)
// over axes, lengths, complex inputs and windows, the generated C against
// evaluate, and every error of infer.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;
using Complex = std::complex<double>;

HostTensor Scalar(DType d, int64_t v) {
  HostTensor t = HostTensor::Zeros(d, {});
  t.SetDouble(0, static_cast<double>(v));
  return t;
}

// DFT of an input `x` (a graph input), dft_length a constant when >= 0.
OpTest Dft(DType d, const Shape& x, int64_t axis, int64_t inverse, int64_t onesided, int64_t length = -1) {
  OpTest t("DFT", "f");
  t.Input("x", d, x);
  if (length >= 0) t.Constant("dft_length", Scalar(DType::kInt64, length));
  t.Output("y");
  t.Attr("axis", axis);
  t.Attr("inverse", inverse);
  t.Attr("onesided", onesided);
  return t;
}

// STFT of a signal, a constant frame_step, the window as a graph input when
// `window` > 0 (its length), frame_length a constant when >= 0.
OpTest Stft(DType d, const Shape& signal, int64_t step, int64_t window, int64_t length, int64_t onesided = 1) {
  OpTest t("STFT", "s");
  t.Input("signal", d, signal);
  t.Constant("frame_step", Scalar(DType::kInt64, step));
  if (window > 0) {
    t.Input("window", d, {window});
  } else if (length >= 0) {
    t.OmittedInput();
  }
  if (length >= 0) t.Constant("frame_length", Scalar(DType::kInt64, length));
  t.Output("y");
  t.Attr("onesided", onesided);
  return t;
}

std::vector<double> Evaluated(OpTest& t, const std::vector<HostTensor>& in, Shape* shape) {
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate(in);
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return {};
  *shape = t.graph().value(t.node().outputs[0]).shape;
  EXPECT_EQ((*y)[0].shape, *shape);
  return Values((*y)[0]);
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << i;
}

// The naive transform of one sequence: sum_n x[n] e^(-+2 pi i k n / N) (/ N).
std::vector<Complex> Naive(const std::vector<Complex>& x, int64_t length, bool inverse) {
  std::vector<Complex> y(static_cast<size_t>(length));
  const double pi = std::acos(-1.0);
  for (int64_t k = 0; k < length; ++k) {
    Complex sum = 0;
    for (int64_t n = 0; n < length && n < static_cast<int64_t>(x.size()); ++n) {
      const double angle = (inverse ? 2 : -2) * pi * static_cast<double>((k * n) % length) / static_cast<double>(length);
      sum += x[static_cast<size_t>(n)] * std::polar(1.0, angle);
    }
    y[static_cast<size_t>(k)] = inverse ? sum / static_cast<double>(length) : sum;
  }
  return y;
}

TEST(Dft, HandComputed) {
  // DFT([1, 2, 3, 4]) = [10, -2 + 2i, -2, -2 - 2i]; its inverse gives the input back.
  Shape shape;
  OpTest forward = Dft(DType::kFloat64, {1, 4, 1}, 1, 0, 0);
  const HostTensor x = MakeTensor(DType::kFloat64, {1, 4, 1}, {1, 2, 3, 4});
  ExpectNear(Evaluated(forward, {x}, &shape), {10, 0, -2, 2, -2, 0, -2, -2}, 1e-12);
  EXPECT_EQ(shape, (Shape{1, 4, 2}));
  OpTest inverse = Dft(DType::kFloat64, {1, 4, 2}, 1, 1, 0);
  const HostTensor spectrum = MakeTensor(DType::kFloat64, {1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2});
  ExpectNear(Evaluated(inverse, {spectrum}, &shape), {1, 0, 2, 0, 3, 0, 4, 0}, 1e-12);
  // onesided: bins 0 .. N / 2; dft_length 6 zero-pads, 2 truncates.
  OpTest onesided = Dft(DType::kFloat64, {1, 4, 1}, 1, 0, 1);
  ExpectNear(Evaluated(onesided, {x}, &shape), {10, 0, -2, 2, -2, 0}, 1e-12);
  EXPECT_EQ(shape, (Shape{1, 3, 2}));
  OpTest truncated = Dft(DType::kFloat64, {1, 4, 1}, 1, 0, 0, 2);
  ExpectNear(Evaluated(truncated, {x}, &shape), {3, 0, -1, 0}, 1e-12);
  EXPECT_EQ(shape, (Shape{1, 2, 2}));
  OpTest padded = Dft(DType::kFloat64, {1, 4, 1}, -2, 0, 0, 6);
  std::vector<double> want;
  for (const Complex& c : Naive({1, 2, 3, 4}, 6, false)) want.insert(want.end(), {c.real(), c.imag()});
  ExpectNear(Evaluated(padded, {x}, &shape), want, 1e-12);
  EXPECT_EQ(shape, (Shape{1, 6, 2}));
}

TEST(Dft, BackendCases) {
  // test_dft / test_dft_axis: x = 0..99 as [1, 10, 10, 1].
  std::vector<double> ramp;
  for (int i = 0; i < 100; ++i) ramp.push_back(i);
  const HostTensor x = MakeTensor(DType::kFloat32, {1, 10, 10, 1}, ramp);
  Shape shape;
  OpTest axis1 = Dft(DType::kFloat32, {1, 10, 10, 1}, 1, 0, 0);
  const std::vector<double> y1 = Evaluated(axis1, {x}, &shape);
  EXPECT_EQ(shape, (Shape{1, 10, 10, 2}));
  ExpectNear({y1[0], y1[1], y1[2], y1[3], y1[4]}, {450, 0, 460, 0, 470}, 1e-6);
  OpTest axis2 = Dft(DType::kFloat32, {1, 10, 10, 1}, 2, 0, 0);
  const std::vector<double> y2 = Evaluated(axis2, {x}, &shape);
  ExpectNear({y2[0], y2[1], y2[2], y2[3], y2[4], y2[5]}, {45, 0, -5, 15.388417, -5, 6.8819094}, 1e-6);
  // test_dft_inverse: x = 0..99 + 0i along axis 1: bin 0 of column c is 45 + c.
  HostTensor complex = HostTensor::Zeros(DType::kFloat32, {1, 10, 10, 2});
  for (int i = 0; i < 100; ++i) complex.SetDouble(static_cast<uint64_t>(2 * i), i);
  OpTest inverse = Dft(DType::kFloat32, {1, 10, 10, 2}, 1, 1, 0);
  const std::vector<double> yi = Evaluated(inverse, {complex}, &shape);
  ExpectNear({yi[0], yi[1], yi[2], yi[3], yi[4], yi[5]}, {45, 0, 46, 0, 47, 0}, 1e-6);
  for (OpTest* t : {&axis1, &axis2}) ExpectGeneratedMatches(*t, {x}, 1e-6);
  ExpectGeneratedMatches(inverse, {complex}, 1e-6);
}

TEST(Dft, MatchesNaiveReference) {
  // [2, 5, 3, c]: along axis 1 (5 samples, 3 sequences per batch) and axis 2.
  uint64_t seed = 1;
  for (int64_t channels : {1, 2}) {
    for (int64_t axis : {1, 2}) {
      for (int64_t inverse : {0, 1}) {
        for (int64_t length : {-1, 3, 7}) {
          const Shape xs = {2, 5, 3, channels};
          const HostTensor x = RandomTensor(DType::kFloat64, xs, seed++);
          OpTest t = Dft(DType::kFloat64, xs, axis, inverse, 0, length);
          Shape shape;
          const std::vector<double> got = Evaluated(t, {x}, &shape);
          const int64_t n_in = xs[static_cast<size_t>(axis)], n = length < 0 ? n_in : length;
          SCOPED_TRACE("channels " + std::to_string(channels) + " axis " + std::to_string(axis) + " inverse " +
                       std::to_string(inverse) + " length " + std::to_string(length));
          ASSERT_EQ(shape[static_cast<size_t>(axis)], n);
          const Shape out_strides = Strides(shape), in_strides = Strides(xs);
          for (int64_t b = 0; b < 2; ++b) {
            for (int64_t other = 0; other < (axis == 1 ? 3 : 5); ++other) {
              std::vector<Complex> seq;
              for (int64_t k = 0; k < n_in; ++k) {
                const int64_t i1 = axis == 1 ? k : other, i2 = axis == 1 ? other : k;
                const int64_t at = b * in_strides[0] + i1 * in_strides[1] + i2 * in_strides[2];
                seq.emplace_back(x.GetDouble(static_cast<uint64_t>(at)),
                                 channels == 2 ? x.GetDouble(static_cast<uint64_t>(at + 1)) : 0.0);
              }
              const std::vector<Complex> want = Naive(seq, n, inverse == 1);
              for (int64_t k = 0; k < n; ++k) {
                const int64_t i1 = axis == 1 ? k : other, i2 = axis == 1 ? other : k;
                const int64_t at = b * out_strides[0] + i1 * out_strides[1] + i2 * out_strides[2];
                EXPECT_NEAR(got[static_cast<size_t>(at)], want[static_cast<size_t>(k)].real(), 1e-12);
                EXPECT_NEAR(got[static_cast<size_t>(at + 1)], want[static_cast<size_t>(k)].imag(), 1e-12);
              }
            }
          }
          ExpectGeneratedMatches(t, {x}, 1e-12, seed % 5 == 0);
        }
      }
    }
  }
  // Onesided on float32, odd and even lengths.
  for (int64_t length : {-1, 4}) {
    OpTest t = Dft(DType::kFloat32, {3, 5, 1}, 1, 0, 1, length);
    ExpectGeneratedMatches(t, {RandomTensor(DType::kFloat32, {3, 5, 1}, seed++)}, 1e-6);
  }
}

TEST(Stft, BackendCasesAndReference) {
  // test_stft: signal 0..127, frame_step 8, frame_length 16 (15 frames of 9 bins).
  std::vector<double> ramp;
  for (int i = 0; i < 128; ++i) ramp.push_back(i);
  const HostTensor signal = MakeTensor(DType::kFloat32, {1, 128, 1}, ramp);
  Shape shape;
  OpTest plain = Stft(DType::kFloat32, {1, 128, 1}, 8, 0, 16);
  const std::vector<double> y = Evaluated(plain, {signal}, &shape);
  EXPECT_EQ(shape, (Shape{1, 15, 9, 2}));
  ExpectNear({y[0], y[1], y[2], y[3], y[4], y[5]}, {120, 0, -8, 40.218716, -8, 19.31371}, 1e-6);
  // The second frame starts at sample 8: its bin 0 is 8 + ... + 23 = 248.
  EXPECT_NEAR(y[18], 248, 1e-4);
  ExpectGeneratedMatches(plain, {signal}, 1e-6);
  // test_stft_with_window: the window (the case's is 0.5 + 0.5 cos(2 pi n /
  // 16)) gives the frame length; each frame is multiplied by it before the
  // transform.
  HostTensor window = HostTensor::Zeros(DType::kFloat32, {16});
  for (int i = 0; i < 16; ++i) window.SetDouble(static_cast<uint64_t>(i), 0.5 + 0.5 * std::cos(2 * std::acos(-1.0) * i / 16));
  OpTest windowed = Stft(DType::kFloat32, {1, 128, 1}, 8, 16, -1);
  const std::vector<double> yw = Evaluated(windowed, {signal, window}, &shape);
  EXPECT_EQ(shape, (Shape{1, 15, 9, 2}));
  EXPECT_NEAR(yw[0], 56, 1e-3);  // sum of n * window(n), n < 16: the case's 55.996273
  ExpectGeneratedMatches(windowed, {signal, window}, 1e-6);
  // Complex signal, two batches, onesided=0, a window and frame_length
  // both given, against the naive transform.
  const HostTensor cs = RandomTensor(DType::kFloat64, {2, 11, 2}, 3), cw = RandomTensor(DType::kFloat64, {4}, 4);
  OpTest full = Stft(DType::kFloat64, {2, 11, 2}, 3, 4, 4, 0);
  const std::vector<double> yf = Evaluated(full, {cs, cw}, &shape);
  ASSERT_EQ(shape, (Shape{2, 3, 4, 2}));
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t f = 0; f < 3; ++f) {
      std::vector<Complex> frame;
      for (int64_t n = 0; n < 4; ++n) {
        const uint64_t at = static_cast<uint64_t>((b * 11 + f * 3 + n) * 2);
        frame.push_back(Complex(cs.GetDouble(at), cs.GetDouble(at + 1)) * cw.GetDouble(static_cast<uint64_t>(n)));
      }
      const std::vector<Complex> want = Naive(frame, 4, false);
      for (int64_t k = 0; k < 4; ++k) {
        const size_t at = static_cast<size_t>(((b * 3 + f) * 4 + k) * 2);
        EXPECT_NEAR(yf[at], want[static_cast<size_t>(k)].real(), 1e-12);
        EXPECT_NEAR(yf[at + 1], want[static_cast<size_t>(k)].imag(), 1e-12);
      }
    }
  }
  ExpectGeneratedMatches(full, {cs, cw}, 1e-12, true);
}

TEST(Dft, Errors) {
  OpTest axis = Dft(DType::kFloat32, {1, 4, 1}, 2, 0, 0);
  EXPECT_EQ(InferError(axis), "node 'f' (DFT): axis 2 is the real/imaginary axis; expected a signal axis (1 to 1)");
  OpTest batch = Dft(DType::kFloat32, {1, 4, 1}, 0, 0, 0);
  EXPECT_EQ(InferError(batch), "node 'f' (DFT): axis 0 is the batch axis; expected a signal axis (1 to 1)");
  OpTest shape = Dft(DType::kFloat32, {1, 4, 3}, 1, 0, 0);
  EXPECT_EQ(InferError(shape),
            "node 'f' (DFT): input 0 must be [batch, signal dims..., 1 or 2] (rank 3 or more), got shape [1, 4, 3]");
  OpTest inverse = Dft(DType::kFloat32, {1, 4, 1}, 1, 2, 0);
  EXPECT_EQ(InferError(inverse), "node 'f' (DFT): attribute 'inverse' must be 0 or 1, got 2");
  OpTest onesided = Dft(DType::kFloat32, {1, 4, 2}, 1, 0, 1);
  EXPECT_EQ(InferError(onesided),
            "node 'f' (DFT): onesided=1 is supported for the forward transform of a real input only");
  OpTest zero = Dft(DType::kFloat32, {1, 4, 1}, 1, 0, 0, 0);
  EXPECT_EQ(InferError(zero), "node 'f' (DFT): input 1 (dft_length) is 0, expected 1 or more");
  OpTest runtime("DFT", "f");
  runtime.Input("x", DType::kFloat32, {1, 4, 1});
  runtime.Input("dft_length", DType::kInt64, {});
  runtime.Output("y");
  EXPECT_EQ(InferError(runtime), "node 'f' (DFT): input 1 (dft_length) must be a constant");
  OpTest dtype = Dft(DType::kInt32, {1, 4, 1}, 1, 0, 0);
  EXPECT_EQ(InferError(dtype), "node 'f' (DFT): input 0 has dtype int32; supported: float32, float64");
}

TEST(Stft, Errors) {
  OpTest step("STFT", "s");
  step.Input("signal", DType::kFloat32, {1, 16, 1});
  step.Input("frame_step", DType::kInt64, {});
  step.OmittedInput();
  step.Constant("frame_length", Scalar(DType::kInt64, 4));
  step.Output("y");
  EXPECT_EQ(InferError(step), "node 's' (STFT): input 1 (frame_step) must be a constant");
  OpTest length("STFT", "s");
  length.Input("signal", DType::kFloat32, {1, 16, 1});
  length.Constant("frame_step", Scalar(DType::kInt64, 2));
  length.Output("y");
  EXPECT_EQ(InferError(length), "node 's' (STFT): needs input 3 (frame_length) or a non-empty input 2 (window)");
  OpTest mismatch = Stft(DType::kFloat32, {1, 16, 1}, 2, 5, 4);
  EXPECT_EQ(InferError(mismatch), "node 's' (STFT): input 2 (window) has 5 samples, but frame_length is 4");
  OpTest longer = Stft(DType::kFloat32, {1, 16, 1}, 2, 0, 17);
  EXPECT_EQ(InferError(longer), "node 's' (STFT): frame_length 17 is longer than the signal (16 samples)");
  OpTest onesided = Stft(DType::kFloat32, {1, 16, 2}, 2, 0, 4);
  EXPECT_EQ(InferError(onesided), "node 's' (STFT): onesided=1 is supported for a real signal only; set onesided=0");
  OpTest rank = Stft(DType::kFloat32, {16, 1}, 2, 0, 4);
  EXPECT_EQ(InferError(rank), "node 's' (STFT): input 0 (signal) must be [batch, length, 1 or 2], got shape [16, 1]");
  OpTest zero_step = Stft(DType::kFloat32, {1, 16, 1}, 0, 0, 4);
  EXPECT_EQ(InferError(zero_step), "node 's' (STFT): input 1 (frame_step) is 0, expected 1 or more");
}

}  // namespace
}  // namespace mlf::ops::testing
