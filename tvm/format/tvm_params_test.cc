#include "tvm/format/tvm_params.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mlf {
namespace {

constexpr uint64_t kFileMagic = 0xF7E58D4F05049CB7;
constexpr uint64_t kArrayMagic = 0xDD5E40F096B4A13F;

// Spells a file field by field, straight from the layout in docs/archive-format.md ("The .params layout"), so the
// tests do not depend on WriteTvmParams being right.
class Bytes {
 public:
  Bytes& U(uint64_t v, int size) {
    for (int i = 0; i < size; ++i) s_ += static_cast<char>((v >> (8 * i)) & 0xFF);
    return *this;
  }
  Bytes& U64(uint64_t v) { return U(v, 8); }
  Bytes& I32(int32_t v) { return U(static_cast<uint32_t>(v), 4); }
  Bytes& Raw(const std::string& r) { s_ += r; return *this; }
  Bytes& Header(const std::vector<std::string>& names) {
    U64(kFileMagic).U64(0).U64(names.size());
    for (const std::string& n : names) U64(n.size()).Raw(n);
    return U64(names.size());
  }
  // An array header up to and including nbytes.
  Bytes& Array(uint8_t code, uint8_t bits, uint16_t lanes, const std::vector<int64_t>& shape,
               int64_t nbytes) {
    U64(kArrayMagic).U64(0).I32(1).I32(0).I32(static_cast<int32_t>(shape.size()));
    U(code, 1).U(bits, 1).U(lanes, 2);
    for (int64_t d : shape) U64(static_cast<uint64_t>(d));
    return U64(static_cast<uint64_t>(nbytes));
  }
  const std::string& str() const { return s_; }

 private:
  std::string s_;
};

// The single-tensor file most error tests start from: "w", int32 [3].
// Offsets: names count 16, name length 24, 'w' 32, array count 33, array
// magic 41, device_type 57, ndim 65, code 69, shape 73, nbytes 81, data 89.
std::string OneTensorFile() {
  return Bytes().Header({"w"}).Array(kDLInt, 32, 1, {3}, 12).Raw(std::string(12, 'd')).str();
}

std::string ReadError(const std::string& file, StatusCode code) {
  Result<std::vector<NamedTensor>> r = ReadTvmParams(file);
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), code) << r.status().ToString();
  return r.status().message();
}

std::vector<NamedTensor> SampleTensors() {
  return {
      {"int8_vec", DType::kInt8, {5}, std::string("\x01\x02\x03\xFF\x80", 5)},
      {"dense/weight", DType::kFloat32, {2, 3}, std::string(24, '\x3F')},
      {"step", DType::kInt64, {}, std::string("\x2A\0\0\0\0\0\0\0", 8)},
      {"mask", DType::kBool, {2, 2}, std::string("\x01\x00\x00\x01", 4)},
      {"half", DType::kBFloat16, {1, 1, 2}, std::string("\x80\x3F\x00\x40", 4)},
      {"nothing", DType::kUInt16, {0, 7}, ""},
  };
}

TEST(TvmParamsTest, RoundTripsSeveralTensors) {
  const std::vector<NamedTensor> in = SampleTensors();
  Result<std::vector<NamedTensor>> out = ReadTvmParams(WriteTvmParams(in));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ((*out)[i].name, in[i].name);
    EXPECT_EQ((*out)[i].dtype, in[i].dtype) << in[i].name;
    EXPECT_EQ((*out)[i].shape, in[i].shape) << in[i].name;
    EXPECT_EQ((*out)[i].data, in[i].data) << in[i].name;
  }
}

TEST(TvmParamsTest, EmptyDictionaryIsExactly32Bytes) {
  const std::string file = WriteTvmParams({});
  EXPECT_EQ(file, Bytes().U64(kFileMagic).U64(0).U64(0).U64(0).str());
  EXPECT_EQ(file.size(), 32u);
  Result<std::vector<NamedTensor>> r = ReadTvmParams(file);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->empty());
}

TEST(TvmParamsTest, WritesTheDocumentedLayout) {
  const std::string data("\x01\0\0\0\x02\0\0\0\x03\0\0\0", 12);
  EXPECT_EQ(WriteTvmParams({{"w", DType::kInt32, {3}, data}}),
            Bytes().Header({"w"}).Array(kDLInt, 32, 1, {3}, 12).Raw(data).str());
  // bool is TVM's uint1, one byte per element.
  EXPECT_EQ(WriteTvmParams({{"b", DType::kBool, {}, "\x01"}}),
            Bytes().Header({"b"}).Array(kDLUInt, 1, 1, {}, 1).Raw("\x01").str());
}

TEST(TvmParamsTest, EveryTruncationIsDataLoss) {
  const std::string file = WriteTvmParams(SampleTensors());
  for (size_t len = 0; len < file.size(); ++len) {
    Result<std::vector<NamedTensor>> r = ReadTvmParams(file.substr(0, len));
    ASSERT_FALSE(r.ok()) << "prefix of " << len << " bytes was accepted";
    EXPECT_EQ(r.status().code(), StatusCode::kDataLoss) << r.status().ToString();
  }
}

TEST(TvmParamsTest, EveryCorruptedByteIsHandled) {
  const std::string file = WriteTvmParams(SampleTensors());
  for (size_t i = 0; i < file.size(); ++i) {
    for (unsigned char x : {0x01, 0x80, 0xFF}) {
      std::string bad = file;
      bad[i] = static_cast<char>(bad[i] ^ x);
      Result<std::vector<NamedTensor>> r = ReadTvmParams(bad);  // must not crash
      if (r.ok()) {
        EXPECT_EQ(r->size(), 6u);
      } else {
        EXPECT_EQ(r.status().message().rfind(".params: ", 0), 0u) << r.status().message();
      }
    }
  }
}

TEST(TvmParamsTest, TruncatedHeader) {
  EXPECT_EQ(ReadError("", StatusCode::kDataLoss),
            ".params: truncated at offset 0: the file magic needs 8 bytes but only 0 remain");
  // Fewer bytes than the smallest array: caught at the count, before any array.
  EXPECT_EQ(ReadError(OneTensorFile().substr(0, 60), StatusCode::kDataLoss),
            ".params: array count 1 at offset 33 cannot fit in the 19 remaining bytes");
  EXPECT_EQ(ReadError(OneTensorFile().substr(0, 85), StatusCode::kDataLoss),
            ".params: tensor 0 ('w'): truncated at offset 81: nbytes needs 8 bytes but only 4 "
            "remain");
}

TEST(TvmParamsTest, BadFileMagic) {
  std::string file = OneTensorFile();
  file[0] = 'X';
  EXPECT_EQ(ReadError(file, StatusCode::kInvalidArgument),
            ".params: bad file magic 0xF7E58D4F05049C58 at offset 0 (expected "
            "0xF7E58D4F05049CB7); not a TVM .params file");
}

TEST(TvmParamsTest, ReservedWordsAreIgnoredLikeTvm) {
  std::string file = OneTensorFile();
  file[8] = 7;   // file header reserved
  file[49] = 9;  // array reserved
  file[61] = 3;  // device_id
  EXPECT_TRUE(ReadTvmParams(file).ok());
}

TEST(TvmParamsTest, LyingNameCount) {
  const std::string file = Bytes().U64(kFileMagic).U64(0).U64(1ull << 60).str();
  EXPECT_EQ(ReadError(file, StatusCode::kDataLoss),
            ".params: name count 1152921504606846976 at offset 16 cannot fit in the 0 "
            "remaining bytes");
}

TEST(TvmParamsTest, LyingNameLength) {
  const std::string file =
      Bytes().U64(kFileMagic).U64(0).U64(2).U64(1).Raw("a").U64(4000).Raw("0123456789ab").str();
  EXPECT_EQ(ReadError(file, StatusCode::kDataLoss),
            ".params: name 1: declared length 4000 but only 12 bytes remain at offset 41");
}

TEST(TvmParamsTest, LyingArrayCount) {
  const std::string file =
      Bytes().U64(kFileMagic).U64(0).U64(0).U64(UINT64_MAX).Raw(std::string(39, 'x')).str();
  EXPECT_EQ(ReadError(file, StatusCode::kDataLoss),
            ".params: array count 18446744073709551615 at offset 24 cannot fit in the 39 "
            "remaining bytes");
}

TEST(TvmParamsTest, NameAndArrayCountsDiffer) {
  const std::string file = Bytes()
                               .U64(kFileMagic).U64(0).U64(2)
                               .U64(1).Raw("a").U64(1).Raw("b")
                               .U64(1)
                               .Array(kDLInt, 8, 1, {}, 1).Raw("z")
                               .str();
  EXPECT_EQ(ReadError(file, StatusCode::kInvalidArgument),
            ".params: 2 names but 1 arrays (array count at offset 42)");
}

TEST(TvmParamsTest, DuplicateNames) {
  const std::string file = Bytes()
                               .Header({"w", "v", "w"})
                               .Array(kDLInt, 8, 1, {}, 1).Raw("a")
                               .Array(kDLInt, 8, 1, {}, 1).Raw("b")
                               .Array(kDLInt, 8, 1, {}, 1).Raw("c")
                               .str();
  EXPECT_EQ(ReadError(file, StatusCode::kInvalidArgument),
            ".params: name 'w' appears twice (names 0 and 2)");
}

TEST(TvmParamsTest, BadArrayMagic) {
  std::string file = OneTensorFile();
  file[41] = 0;
  EXPECT_EQ(ReadError(file, StatusCode::kInvalidArgument),
            ".params: tensor 0 ('w'): bad array magic 0xDD5E40F096B4A100 at offset 41 "
            "(expected 0xDD5E40F096B4A13F)");
}

TEST(TvmParamsTest, NonCpuDevice) {
  std::string file = OneTensorFile();
  file[57] = 2;
  EXPECT_EQ(ReadError(file, StatusCode::kInvalidArgument),
            ".params: tensor 0 ('w'): device_type 2 at offset 57 is not CPU (1)");
}

TEST(TvmParamsTest, NdimOutOfRange) {
  const std::string big =
      Bytes().Header({"w"}).Array(kDLInt, 8, 1, std::vector<int64_t>(33, 1), 1).str();
  EXPECT_EQ(ReadError(big, StatusCode::kInvalidArgument),
            ".params: tensor 0 ('w'): ndim 33 at offset 65 is out of range (0 to 32)");
  std::string negative = OneTensorFile();
  negative.replace(65, 4, std::string(4, '\xFF'));
  EXPECT_EQ(ReadError(negative, StatusCode::kInvalidArgument),
            ".params: tensor 0 ('w'): ndim -1 at offset 65 is out of range (0 to 32)");
}

TEST(TvmParamsTest, UnsupportedDtype) {
  std::string file = Bytes().Header({"w"}).Array(kDLFloat, 32, 4, {1}, 16).str();
  EXPECT_EQ(ReadError(file, StatusCode::kInvalidArgument),
            ".params: tensor 0 ('w'): dtype at offset 69: vector DLPack dtype (code 2, bits 32, "
            "lanes 4) is not supported; lanes must be 1");
  file = Bytes().Header({"w"}).Array(kDLOpaqueHandle, 64, 1, {1}, 8).str();
  EXPECT_EQ(ReadError(file, StatusCode::kInvalidArgument),
            ".params: tensor 0 ('w'): dtype at offset 69: unsupported DLPack dtype (code 3, "
            "bits 64, lanes 1)");
}

TEST(TvmParamsTest, NegativeDimension) {
  const std::string file = Bytes().Header({"w"}).Array(kDLInt, 8, 1, {2, -3}, 0).str();
  EXPECT_EQ(ReadError(file, StatusCode::kInvalidArgument),
            ".params: tensor 0 ('w'): shape [2, -3]: dimension 1 is negative");
}

TEST(TvmParamsTest, NbytesDisagreesWithShape) {
  const std::string file =
      Bytes().Header({"w"}).Array(kDLInt, 32, 1, {3}, 10).Raw(std::string(10, 'd')).str();
  EXPECT_EQ(ReadError(file, StatusCode::kInvalidArgument),
            ".params: tensor 0 ('w'): nbytes 10 at offset 81 does not match int32 [3] (12 bytes)");
  const std::string negative = Bytes().Header({"w"}).Array(kDLInt, 32, 1, {3}, -12).str();
  EXPECT_EQ(ReadError(negative, StatusCode::kInvalidArgument),
            ".params: tensor 0 ('w'): nbytes -12 at offset 81 does not match int32 [3] "
            "(12 bytes)");
}

TEST(TvmParamsTest, DataShorterThanDeclared) {
  const std::string file =
      Bytes().Header({"w"}).Array(kDLInt, 32, 1, {1000}, 4000).Raw(std::string(12, 'd')).str();
  EXPECT_EQ(ReadError(file, StatusCode::kDataLoss),
            ".params: tensor 0 ('w'): declared 4000 bytes but only 12 remain at offset 89");
}

TEST(TvmParamsTest, HugeShapeDoesNotAllocate) {
  const std::string file = Bytes()
                               .Header({"w"})
                               .Array(kDLInt, 8, 1, {int64_t{1} << 62}, int64_t{1} << 62)
                               .str();
  EXPECT_EQ(ReadError(file, StatusCode::kDataLoss),
            ".params: tensor 0 ('w'): declared 4611686018427387904 bytes but only 0 remain at "
            "offset 89");
}

TEST(TvmParamsTest, TrailingBytes) {
  EXPECT_EQ(ReadError(OneTensorFile() + "xyz", StatusCode::kInvalidArgument),
            ".params: 3 trailing bytes after the last tensor at offset 101");
}

TEST(TvmParamsTest, HostileNamesAreEscapedAndShortened) {
  const std::string name = "a\nb" + std::string(300, 'x');
  const std::string file = Bytes().Header({name}).Raw(std::string(40, '\0')).str();
  const std::string message = ReadError(file, StatusCode::kInvalidArgument);
  EXPECT_EQ(message, ".params: tensor 0 ('a\\x0ab" + std::string(197, 'x') +
                         "...'): bad array magic 0x0000000000000000 at offset 343 (expected "
                         "0xDD5E40F096B4A13F)");
}

}  // namespace
}  // namespace mlf
