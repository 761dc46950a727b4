// TfIdfVectorizer: the seven ONNX backend cases (1-D and batched input,
// unigrams and bigrams, skips 0 and 5, an empty level), IDF and TFIDF with
// weights against a count by hand, the generated C against evaluate, and
// every error of infer.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;
using Ints = std::vector<int64_t>;

struct Spec {
  int64_t min_n, max_n, skip;
  Ints counts, indexes, pool;
  std::string mode = "TF";
  std::vector<double> weights = {};
};

OpTest TfIdf(DType d, const Shape& x, const Spec& s) {
  OpTest t("TfIdfVectorizer", "tf");
  t.Input("X", d, x);
  t.Output("Y");
  t.Attr("min_gram_length", s.min_n);
  t.Attr("max_gram_length", s.max_n);
  t.Attr("max_skip_count", s.skip);
  t.Attr("ngram_counts", s.counts);
  t.Attr("ngram_indexes", s.indexes);
  t.Attr("pool_int64s", s.pool);
  t.Attr("mode", s.mode);
  if (!s.weights.empty()) t.Attr("weights", s.weights);
  return t;
}

std::vector<double> Evaluated(OpTest& t, const HostTensor& x, Shape* shape) {
  const Status st = t.Infer();
  EXPECT_TRUE(st.ok()) << st.ToString();
  auto y = t.Evaluate({x});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return {};
  *shape = t.graph().value(t.node().outputs[0]).shape;
  EXPECT_EQ((*y)[0].shape, *shape);
  EXPECT_EQ((*y)[0].dtype, DType::kFloat32);
  return Values((*y)[0]);
}

const Ints kPool = {2, 3, 5, 4, 5, 6, 7, 8, 6, 7};  // unigrams 2 3 5 4; bigrams 56 78 67
const Ints kCounts = {0, 4};
const Ints kIndexes = {0, 1, 2, 3, 4, 5, 6};
const std::vector<double> kTokens = {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8};

TEST(TfIdf, BackendCases) {
  struct Case {
    const char* name;
    Spec spec;
    bool batch;
    std::vector<double> want;
  };
  const Case cases[] = {
      {"tf_only_bigrams_skip0", {2, 2, 0, kCounts, kIndexes, kPool}, false, {0, 0, 0, 0, 1, 1, 1}},
      {"tf_onlybigrams_skip5", {2, 2, 5, kCounts, kIndexes, kPool}, false, {0, 0, 0, 0, 1, 3, 1}},
      {"tf_uniandbigrams_skip5", {1, 2, 5, kCounts, kIndexes, kPool}, false, {0, 3, 1, 0, 1, 3, 1}},
      {"tf_onlybigrams_levelempty", {2, 2, 0, {0, 0}, {0, 1, 2}, {5, 6, 7, 8, 6, 7}}, false, {1, 1, 1}},
      {"tf_batch_onlybigrams_skip0", {2, 2, 0, kCounts, kIndexes, kPool}, true, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1}},
      {"tf_batch_onlybigrams_skip5", {2, 2, 5, kCounts, kIndexes, kPool}, true, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1}},
      {"tf_batch_uniandbigrams_skip5", {1, 2, 5, kCounts, kIndexes, kPool}, true, {0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Shape xs = c.batch ? Shape{2, 6} : Shape{12};
    for (DType d : {DType::kInt32, DType::kInt64}) {
      OpTest t = TfIdf(d, xs, c.spec);
      const HostTensor x = MakeTensor(d, xs, kTokens);
      Shape shape;
      EXPECT_EQ(Evaluated(t, x, &shape), c.want);
      const int64_t n = static_cast<int64_t>(c.want.size());
      EXPECT_EQ(shape, (c.batch ? Shape{2, n / 2} : Shape{n}));
      ExpectGeneratedMatches(t, {x}, 0, d == DType::kInt64);
    }
  }
}

TEST(TfIdf, WeightsAndModes) {
  // Tokens 1 1 3 3 3 7 8 6 7 5 6 8: unigram 3 occurs 3 times, 5 once, 2 and 4
  // never; bigram 7-8 once without skips. Columns: unigrams 3 -> 0, 5 -> 1,
  // 2 -> 3 (column 2 unmapped), bigram 7 8 -> 4.
  const Spec base{1, 2, 0, {0, 3}, {3, 0, 1, 4}, {2, 3, 5, 7, 8}, "TF", {0.5, 2, 4, 0.25}};
  const HostTensor x = MakeTensor(DType::kInt64, {12}, kTokens);
  Shape shape;
  Spec tf = base;
  OpTest t_tf = TfIdf(DType::kInt64, {12}, tf);
  EXPECT_EQ(Evaluated(t_tf, x, &shape), (std::vector<double>{3, 1, 0, 0, 1}));
  Spec idf = base;
  idf.mode = "IDF";
  OpTest t_idf = TfIdf(DType::kInt64, {12}, idf);
  EXPECT_EQ(Evaluated(t_idf, x, &shape), (std::vector<double>{2, 4, 0, 0, 0.25}));
  Spec tfidf = base;
  tfidf.mode = "TFIDF";
  OpTest t_tfidf = TfIdf(DType::kInt64, {12}, tfidf);
  EXPECT_EQ(Evaluated(t_tfidf, x, &shape), (std::vector<double>{6, 4, 0, 0, 0.25}));
  for (OpTest* t : {&t_tf, &t_idf, &t_tfidf}) ExpectGeneratedMatches(*t, {x});
  // Random tokens in a small alphabet, trigrams with skips, batched.
  const Spec tri{1, 3, 2, {0, 2, 4}, {5, 0, 1, 2, 3}, {1, 2, 1, 2, 0, 1, 2}, "TFIDF", {1, 2, 3, 4, 5}};
  HostTensor r = HostTensor::Zeros(DType::kInt32, {3, 17});
  for (uint64_t i = 0; i < r.element_count(); ++i) r.SetDouble(i, static_cast<double>((i * 7 + i / 3) % 3));
  OpTest t_tri = TfIdf(DType::kInt32, {3, 17}, tri);
  ExpectGeneratedMatches(t_tri, {r}, 0, true);
}

TEST(TfIdf, Errors) {
  const Spec ok{2, 2, 0, kCounts, kIndexes, kPool};
  Spec mode = ok;
  mode.mode = "BM25";
  OpTest t_mode = TfIdf(DType::kInt32, {12}, mode);
  EXPECT_EQ(InferError(t_mode), "node 'tf' (TfIdfVectorizer): attribute 'mode' is 'BM25' (TF, IDF or TFIDF)");
  Spec lengths = ok;
  lengths.min_n = 3;
  OpTest t_lengths = TfIdf(DType::kInt32, {12}, lengths);
  EXPECT_EQ(InferError(t_lengths),
            "node 'tf' (TfIdfVectorizer): min_gram_length 3 and max_gram_length 2 are invalid (1 <= min <= max)");
  Spec counts = ok;
  counts.counts = {0, 3};
  OpTest t_counts = TfIdf(DType::kInt32, {12}, counts);
  EXPECT_EQ(InferError(t_counts),
            "node 'tf' (TfIdfVectorizer): attribute 'ngram_counts' [0, 3] does not divide the 10 pool entries into "
            "whole 2-grams");
  Spec indexes = ok;
  indexes.indexes = {0, 1, 2};
  OpTest t_indexes = TfIdf(DType::kInt32, {12}, indexes);
  EXPECT_EQ(InferError(t_indexes),
            "node 'tf' (TfIdfVectorizer): attribute 'ngram_indexes' has 3 entries, fewer than the pool's n-grams");
  Spec weights = ok;
  weights.weights = {1, 2};
  OpTest t_weights = TfIdf(DType::kInt32, {12}, weights);
  EXPECT_EQ(InferError(t_weights),
            "node 'tf' (TfIdfVectorizer): attribute 'weights' has 2 entries, fewer than the pool's n-grams");
  Spec skip = ok;
  skip.skip = -1;
  OpTest t_skip = TfIdf(DType::kInt32, {12}, skip);
  EXPECT_EQ(InferError(t_skip), "node 'tf' (TfIdfVectorizer): attribute 'max_skip_count' is -1, expected 0 or more");
  OpTest t_dtype = TfIdf(DType::kFloat32, {12}, ok);
  EXPECT_EQ(InferError(t_dtype),
            "node 'tf' (TfIdfVectorizer): input X has dtype float32; supported: int32, int64 (string inputs are not "
            "supported)");
  OpTest t_rank = TfIdf(DType::kInt32, {2, 2, 3}, ok);
  EXPECT_EQ(InferError(t_rank), "node 'tf' (TfIdfVectorizer): input X must be [C] or [N, C], got shape [2, 2, 3]");
  OpTest strings = TfIdf(DType::kInt32, {12}, ok);
  strings.Attr("pool_strings", std::vector<std::string>{"a"});
  EXPECT_EQ(InferError(strings), "node 'tf' (TfIdfVectorizer): attribute 'pool_strings' (a string pool) is not supported");
}

}  // namespace
}  // namespace mlf::ops::testing
