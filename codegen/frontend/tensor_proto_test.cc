#include "codegen/frontend/tensor_proto.h"

#include <gtest/gtest.h>

#include <cstring>

namespace mlf::frontend {
namespace {

using onnx::TensorProto;

ir::HostTensor Pattern(DType dtype, std::vector<int64_t> shape) {
  ir::HostTensor t = ir::HostTensor::Zeros(dtype, std::move(shape));
  for (size_t i = 0; i < t.bytes.size(); ++i) t.bytes[i] = static_cast<char>(i * 7 + 1);
  if (dtype == DType::kBool) {
    for (size_t i = 0; i < t.bytes.size(); ++i) t.bytes[i] = static_cast<char>(i % 2);
  }
  return t;
}

TensorProto Proto(int32_t type, std::vector<int64_t> dims, const std::string& name = "w") {
  TensorProto p;
  p.set_name(name);
  p.set_data_type(type);
  for (int64_t d : dims) p.add_dims(d);
  return p;
}

std::string Error(const TensorProto& p, const TensorLimits& limits = {}) {
  Result<ir::HostTensor> t = FromTensorProto(p, limits);
  return t.ok() ? "ok" : t.status().ToString();
}

TEST(TensorProto, RawRoundTripEveryDType) {
  for (DType dtype : kAllDTypes) {
    const ir::HostTensor t = Pattern(dtype, {2, 3});
    const std::string bytes = SerializeTensorProto(t, "x");
    std::string name;
    Result<ir::HostTensor> back = ParseTensorProto(bytes, {}, &name);
    ASSERT_TRUE(back.ok()) << DTypeName(dtype) << ": " << back.status().ToString();
    EXPECT_EQ(name, "x");
    EXPECT_EQ(back->dtype, dtype);
    EXPECT_EQ(back->shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(back->bytes, t.bytes) << DTypeName(dtype);
    EXPECT_EQ(DTypeFromOnnx(OnnxDType(dtype)).value(), dtype);
  }
}

TEST(TensorProto, ScalarAndEmpty) {
  ir::HostTensor s = ir::HostTensor::Zeros(DType::kFloat32, {});
  s.data<float>()[0] = 2.5f;
  Result<ir::HostTensor> back = ParseTensorProto(SerializeTensorProto(s, "s"));
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->shape.empty());
  EXPECT_EQ(back->data<float>()[0], 2.5f);

  TensorProto empty = Proto(TensorProto::FLOAT, {0, 4});
  Result<ir::HostTensor> e = FromTensorProto(empty);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->element_count(), 0u);
}

TEST(TensorProto, TypedFields) {
  TensorProto f = Proto(TensorProto::FLOAT, {2});
  f.add_float_data(1.5f);
  f.add_float_data(-2);
  Result<ir::HostTensor> tf = FromTensorProto(f);
  ASSERT_TRUE(tf.ok());
  EXPECT_EQ(tf->data<float>()[1], -2.0f);

  TensorProto d = Proto(TensorProto::DOUBLE, {1});
  d.add_double_data(0.125);
  EXPECT_EQ(FromTensorProto(d)->data<double>()[0], 0.125);

  TensorProto l = Proto(TensorProto::INT64, {2});
  l.add_int64_data(-5);
  l.add_int64_data(int64_t{1} << 40);
  EXPECT_EQ(FromTensorProto(l)->data<int64_t>()[1], int64_t{1} << 40);

  TensorProto i8 = Proto(TensorProto::INT8, {3});
  for (int v : {-128, 0, 127}) i8.add_int32_data(v);
  Result<ir::HostTensor> t8 = FromTensorProto(i8);
  ASSERT_TRUE(t8.ok());
  EXPECT_EQ(t8->data<int8_t>()[0], -128);
  EXPECT_EQ(t8->data<int8_t>()[2], 127);

  TensorProto u16 = Proto(TensorProto::UINT16, {1});
  u16.add_int32_data(65535);
  EXPECT_EQ(FromTensorProto(u16)->data<uint16_t>()[0], 65535);

  TensorProto i16 = Proto(TensorProto::INT16, {1});
  i16.add_int32_data(-300);
  EXPECT_EQ(FromTensorProto(i16)->data<int16_t>()[0], -300);

  TensorProto i32 = Proto(TensorProto::INT32, {1});
  i32.add_int32_data(-70000);
  EXPECT_EQ(FromTensorProto(i32)->data<int32_t>()[0], -70000);

  TensorProto b = Proto(TensorProto::BOOL, {2});
  b.add_int32_data(1);
  b.add_int32_data(0);
  EXPECT_EQ(FromTensorProto(b)->bytes, std::string("\x01\x00", 2));

  TensorProto h = Proto(TensorProto::FLOAT16, {1});
  h.add_int32_data(0x3C00);  // 1.0
  EXPECT_EQ(FromTensorProto(h)->GetDouble(0), 1.0);

  TensorProto bf = Proto(TensorProto::BFLOAT16, {1});
  bf.add_int32_data(0x4040);  // 3.0
  EXPECT_EQ(FromTensorProto(bf)->GetDouble(0), 3.0);

  TensorProto u32 = Proto(TensorProto::UINT32, {1});
  u32.add_uint64_data(4000000000u);
  EXPECT_EQ(FromTensorProto(u32)->data<uint32_t>()[0], 4000000000u);

  TensorProto u64 = Proto(TensorProto::UINT64, {1});
  u64.add_uint64_data(UINT64_MAX);
  EXPECT_EQ(FromTensorProto(u64)->data<uint64_t>()[0], UINT64_MAX);
}

TEST(TensorProto, RawBoolIsNormalised) {
  TensorProto b = Proto(TensorProto::BOOL, {2});
  b.set_raw_data(std::string("\x00\x05", 2));
  EXPECT_EQ(FromTensorProto(b)->bytes, std::string("\x00\x01", 2));
}

TEST(TensorProto, Errors) {
  TensorProto ext = Proto(TensorProto::FLOAT, {1});
  ext.set_data_location(TensorProto::EXTERNAL);
  auto* entry = ext.add_external_data();
  entry->set_key("location");
  entry->set_value("weights.bin");
  EXPECT_EQ(Error(ext),
            "unimplemented: tensor 'w': its data is stored externally; mlfkit reads only "
            "self-contained models (save the model without external data)");

  TensorProto seg = Proto(TensorProto::FLOAT, {1});
  seg.mutable_segment()->set_begin(0);
  seg.mutable_segment()->set_end(1);
  EXPECT_EQ(Error(seg), "unimplemented: tensor 'w': segmented tensors are not supported");

  EXPECT_EQ(Error(Proto(TensorProto::UNDEFINED, {1})),
            "invalid_argument: tensor 'w': data_type is not set");
  EXPECT_EQ(Error(Proto(TensorProto::STRING, {1})),
            "unimplemented: tensor 'w': ONNX dtype STRING is not supported");
  EXPECT_EQ(Error(Proto(TensorProto::COMPLEX64, {1})),
            "unimplemented: tensor 'w': ONNX dtype COMPLEX64 is not supported");
  EXPECT_EQ(Error(Proto(99, {1})),
            "invalid_argument: tensor 'w': ONNX dtype <unknown 99> is not a tensor type");
  EXPECT_EQ(Error(Proto(TensorProto::FLOAT, {1, 1, 1, 1, 1, 1, 1, 1, 1})),
            "out_of_range: tensor 'w': rank 9 is more than the limit of 8");
  EXPECT_EQ(Error(Proto(TensorProto::FLOAT, {2, -2})),
            "invalid_argument: tensor 'w': dimension 1 is negative (-2)");
  TensorLimits small;
  small.max_elements = 10;
  EXPECT_EQ(Error(Proto(TensorProto::FLOAT, {3, 4}), small),
            "out_of_range: tensor 'w': shape [3, 4] has more elements than the limit of 10");
  EXPECT_EQ(Error(Proto(TensorProto::FLOAT, {int64_t{1} << 40, int64_t{1} << 40})),
            "out_of_range: tensor 'w': shape [1099511627776, 1099511627776] has more elements "
            "than the limit of 268435456");

  TensorProto raw = Proto(TensorProto::FLOAT, {2, 2});
  raw.set_raw_data(std::string(12, '\0'));
  EXPECT_EQ(Error(raw), "invalid_argument: tensor 'w': raw_data has 12 bytes, float32 [2, 2] needs 16");

  TensorProto both = Proto(TensorProto::FLOAT, {1});
  both.set_raw_data(std::string(4, '\0'));
  both.add_float_data(1);
  EXPECT_EQ(Error(both), "invalid_argument: tensor 'w': has both raw_data and float_data");

  TensorProto wrong = Proto(TensorProto::FLOAT, {1});
  wrong.add_int64_data(1);
  EXPECT_EQ(Error(wrong),
            "invalid_argument: tensor 'w': FLOAT values belong in float_data or raw_data, but "
            "int64_data is set");

  EXPECT_EQ(Error(Proto(TensorProto::INT64, {2, 3})),
            "invalid_argument: tensor 'w': has no data (expected 6 elements for shape [2, 3])");

  TensorProto count = Proto(TensorProto::INT64, {3});
  count.add_int64_data(1);
  count.add_int64_data(2);
  EXPECT_EQ(Error(count),
            "invalid_argument: tensor 'w': int64_data has 2 elements, the shape [3] needs 3");

  TensorProto i8 = Proto(TensorProto::INT8, {2});
  i8.add_int32_data(1);
  i8.add_int32_data(200);
  EXPECT_EQ(Error(i8), "invalid_argument: tensor 'w': value 200 at index 1 does not fit int8");

  TensorProto u8 = Proto(TensorProto::UINT8, {1});
  u8.add_int32_data(-1);
  EXPECT_EQ(Error(u8), "invalid_argument: tensor 'w': value -1 at index 0 does not fit uint8");

  TensorProto b = Proto(TensorProto::BOOL, {1});
  b.add_int32_data(2);
  EXPECT_EQ(Error(b), "invalid_argument: tensor 'w': value 2 at index 0 does not fit bool");

  TensorProto u32 = Proto(TensorProto::UINT32, {1});
  u32.add_uint64_data(uint64_t{1} << 32);
  EXPECT_EQ(Error(u32),
            "invalid_argument: tensor 'w': value 4294967296 at index 0 does not fit uint32");

  EXPECT_EQ(Error(Proto(TensorProto::STRING, {1}, "")),
            "unimplemented: unnamed tensor: ONNX dtype STRING is not supported");

  Result<ir::HostTensor> garbage = ParseTensorProto(std::string("\xff\xff\xff", 3));
  EXPECT_EQ(garbage.status().ToString(),
            "invalid_argument: not an ONNX TensorProto: the bytes do not parse as one");
  EXPECT_EQ(ParseTensorProto("").status().ToString(),
            "invalid_argument: unnamed tensor: data_type is not set");
}

TEST(TensorProto, DTypeNames) {
  EXPECT_EQ(OnnxDTypeName(TensorProto::FLOAT), "FLOAT");
  EXPECT_EQ(OnnxDTypeName(TensorProto::BFLOAT16), "BFLOAT16");
  EXPECT_EQ(OnnxDTypeName(0), "UNDEFINED");
  EXPECT_EQ(OnnxDTypeName(1000), "<unknown 1000>");
}

}  // namespace
}  // namespace mlf::frontend
