#include "artifact/format/npy.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace mlf {
namespace {

// The supported descrs as they appear in the "unsupported descr" message.
constexpr char kSupported[] =
    "(supported: '|b1', '|i1', '<i2', '<i4', '<i8', '|u1', '<u2', '<u4', '<u8', '<f2', "
    "'<f4', '<f8')";

// Magic, version and header length, spelled from the format description.
std::string Preamble(int major, int minor, uint64_t header_size) {
  std::string s("\x93NUMPY", 6);
  s += static_cast<char>(major);
  s += static_cast<char>(minor);
  const int length_size = major == 1 ? 2 : 4;
  for (int i = 0; i < length_size; ++i) s += static_cast<char>((header_size >> (8 * i)) & 0xFF);
  return s;
}

// A file with `header` verbatim (no padding) and `data`.
std::string NpyFile(const std::string& header, const std::string& data = "", int major = 1) {
  return Preamble(major, 0, header.size()) + header + data;
}

std::string Dict(const std::string& descr, const std::string& fortran, const std::string& shape) {
  return "{'descr': " + descr + ", 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
}

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 37 + 11);
  return s;
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// The 2x3 float32 array 0..5 exactly as numpy.save writes it, by hand:
// 10-byte preamble, the dict (59 bytes), 20 spare spaces for axis 0 (21 minus
// one digit), 38 spaces of alignment, '\n' = 128 bytes, then 6 floats.
std::string GoldenFloat32() {
  return std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
         "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" + std::string(58, ' ') +
         "\n" +
         std::string("\x00\x00\x00\x00\x00\x00\x80\x3F\x00\x00\x00\x40"
                     "\x00\x00\x40\x40\x00\x00\x80\x40\x00\x00\xA0\x40",
                     24);
}

NpyArray GoldenArray() {
  NpyArray a;
  a.dtype = DType::kFloat32;
  a.shape = {2, 3};
  a.data = GoldenFloat32().substr(128);
  return a;
}

std::string ParseError(const std::string& bytes, StatusCode code) {
  Result<NpyArray> r = ParseNpy(bytes);
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), code) << r.status().ToString();
  return r.status().message();
}

// ---------------------------------------------------------------- descrs

TEST(NpyDescr, EveryDType) {
  const std::pair<DType, const char*> expected[] = {
      {DType::kBool, "|b1"},    {DType::kInt8, "|i1"},    {DType::kInt16, "<i2"},
      {DType::kInt32, "<i4"},   {DType::kInt64, "<i8"},   {DType::kUInt8, "|u1"},
      {DType::kUInt16, "<u2"},  {DType::kUInt32, "<u4"},  {DType::kUInt64, "<u8"},
      {DType::kFloat16, "<f2"}, {DType::kFloat32, "<f4"}, {DType::kFloat64, "<f8"},
  };
  for (const auto& [dtype, descr] : expected) {
    Result<std::string> d = NpyDescr(dtype);
    ASSERT_TRUE(d.ok()) << DTypeName(dtype);
    EXPECT_EQ(*d, descr);
  }
}

TEST(NpyDescr, BFloat16HasNone) {
  Result<std::string> d = NpyDescr(DType::kBFloat16);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(d.status().message(),
            "bfloat16 has no NumPy dtype and cannot be stored in .npy; convert it to float32");
}

// ---------------------------------------------------------------- writing

TEST(SerializeNpy, GoldenBytes) { EXPECT_EQ(SerializeNpy(GoldenArray()), GoldenFloat32()); }

TEST(SerializeNpy, ScalarHasNoSpareSpaces) {
  NpyArray a;
  a.dtype = DType::kInt8;
  a.data = "\x05";
  // 10 + 55 + '\n' = 66, padded to 128 with 62 spaces.
  EXPECT_EQ(SerializeNpy(a), std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                                 "{'descr': '|i1', 'fortran_order': False, 'shape': (), }" +
                                 std::string(62, ' ') + "\n\x05");
}

TEST(SerializeNpy, OneDimensionalShapeHasTrailingComma) {
  NpyArray a;
  a.dtype = DType::kBool;
  a.shape = {3};
  a.data = std::string("\x01\x00\x01", 3);
  // 10 + 57 + 20 spare + '\n' = 88, padded to 128 with 40 spaces.
  EXPECT_EQ(SerializeNpy(a), std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                                 "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }" +
                                 std::string(60, ' ') + "\n" + a.data);
}

TEST(SerializeNpy, SpareSpacesShrinkWithTheDigitsOfAxisZero) {
  const std::string header = SerializeNpyHeader(DType::kUInt8, {123456, 2});
  const std::string dict = "{'descr': '|u1', 'fortran_order': False, 'shape': (123456, 2), }";
  ASSERT_EQ(header.size(), 128u);
  EXPECT_EQ(header.substr(10, dict.size()), dict);
  EXPECT_EQ(header.substr(10 + dict.size()), std::string(128 - 11 - dict.size(), ' ') + "\n");
}

// numpy pads with a full 64 spaces when the text would already end aligned:
// 10 + 117 (dict and spare spaces) + '\n' = 128.
TEST(SerializeNpy, AlreadyAlignedGetsSixtyFourMoreSpaces) {
  const std::string header =
      SerializeNpyHeader(DType::kFloat32, {0, 1, 1000000000, 10000000000, 10000000000});
  ASSERT_EQ(header.size(), 192u);
  EXPECT_EQ(header.substr(8, 2), std::string("\xB6\x00", 2));  // 182
  EXPECT_EQ(header.substr(127), std::string(64, ' ') + "\n");
}

TEST(SerializeNpy, HeaderAlwaysAlignedTo64) {
  for (int64_t d = 0; d < 300; d += 7) {
    for (size_t ndim = 0; ndim < 12; ++ndim) {
      const std::string h = SerializeNpyHeader(DType::kInt32, std::vector<int64_t>(ndim, d));
      EXPECT_EQ(h.size() % 64, 0u) << d << " " << ndim;
      EXPECT_EQ(h.back(), '\n');
      EXPECT_EQ(h[6], '\x01');
    }
  }
}

TEST(SerializeNpy, HugeHeaderUsesVersion2) {
  NpyArray a;
  a.dtype = DType::kUInt8;
  a.shape.assign(40000, 0);  // "0, " x 40000 > 65535 bytes
  const std::string bytes = SerializeNpy(a);
  ASSERT_GT(bytes.size(), 65535u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x02\x00", 8));
  const uint64_t len = static_cast<unsigned char>(bytes[8]) |
                       static_cast<unsigned char>(bytes[9]) << 8 |
                       static_cast<unsigned char>(bytes[10]) << 16 |
                       static_cast<uint64_t>(static_cast<unsigned char>(bytes[11])) << 24;
  EXPECT_EQ(12 + len, bytes.size());
  EXPECT_EQ(bytes.size() % 64, 0u);
  // Too many dimensions for numpy, and for ParseNpy.
  EXPECT_EQ(ParseError(bytes, StatusCode::kOutOfRange),
            "the .npy shape has more than 64 dimensions");
}

TEST(SerializeNpy, BFloat16IsWrittenAsOpaqueRecordsThatParseRefuses) {
  NpyArray a;
  a.dtype = DType::kBFloat16;
  a.shape = {1};
  a.data = "ab";
  const std::string bytes = SerializeNpy(a);
  EXPECT_NE(bytes.find("'descr': '<V2'"), std::string::npos);
  EXPECT_EQ(ParseError(bytes, StatusCode::kUnimplemented),
            std::string("unsupported .npy descr '<V2' ") + kSupported);
}

// ---------------------------------------------------------------- round trips

TEST(Npy, RoundTripEveryDTypeAndShape) {
  const std::vector<std::vector<int64_t>> shapes = {{}, {0}, {3}, {2, 3, 4}};
  for (DType dtype : kAllDTypes) {
    if (dtype == DType::kBFloat16) continue;
    for (const auto& shape : shapes) {
      NpyArray a;
      a.dtype = dtype;
      a.shape = shape;
      a.data = Pattern(*ByteSize(dtype, shape));
      ASSERT_TRUE(ValidateNpyArray(a).ok());
      const std::string bytes = SerializeNpy(a);
      Result<NpyArray> b = ParseNpy(bytes);
      ASSERT_TRUE(b.ok()) << DTypeName(dtype) << FormatShape(shape) << b.status().ToString();
      EXPECT_EQ(b->dtype, dtype);
      EXPECT_EQ(b->shape, shape);
      EXPECT_EQ(b->data, a.data);
      EXPECT_EQ((bytes.size() - a.data.size()) % 64, 0u);
    }
  }
}

TEST(Npy, FileRoundTrip) {
  const std::string path = TempPath("round_trip.npy");
  ASSERT_TRUE(WriteNpyFile(path, GoldenArray()).ok());
  EXPECT_EQ(ReadAll(path), GoldenFloat32());
  Result<NpyArray> b = ReadNpyFile(path);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->dtype, DType::kFloat32);
  EXPECT_EQ(b->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(b->data, GoldenArray().data);
  // Overwriting replaces the file.
  NpyArray scalar;
  scalar.dtype = DType::kFloat64;
  scalar.data = Pattern(8);
  ASSERT_TRUE(WriteNpyFile(path, scalar).ok());
  Result<NpyArray> c = ReadNpyFile(path);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->shape.empty());
  EXPECT_EQ(c->data, scalar.data);
}

// ---------------------------------------------------------------- accepted variants

TEST(ParseNpy, AcceptsHeaderVariants) {
  const std::string data = Pattern(24);
  const std::string headers[] = {
      "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}",
      "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2, 3,)}",
      "  {\n 'descr' :'<f4' ,\t'fortran_order':False,'shape':( 2 ,3 , ) , }  \n",
      "{'fortran_order': False, 'descr': '<f4', 'shape': (2, 3)}\r\n",
  };
  for (const std::string& h : headers) {
    Result<NpyArray> a = ParseNpy(NpyFile(h, data));
    ASSERT_TRUE(a.ok()) << h << ": " << a.status().ToString();
    EXPECT_EQ(a->dtype, DType::kFloat32);
    EXPECT_EQ(a->shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(a->data, data);
  }
}

TEST(ParseNpy, OneByteTypesAcceptAnyByteOrder) {
  for (const char* descr : {"'|i1'", "'<i1'", "'>i1'", "'=i1'"}) {
    Result<NpyArray> a = ParseNpy(NpyFile(Dict(descr, "False", "(2,)"), "ab"));
    ASSERT_TRUE(a.ok()) << descr << a.status().ToString();
    EXPECT_EQ(a->dtype, DType::kInt8);
  }
  Result<NpyArray> u = ParseNpy(NpyFile(Dict("'<u1'", "False", "()"), "a"));
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->dtype, DType::kUInt8);
  Result<NpyArray> b = ParseNpy(NpyFile(Dict("'>b1'", "False", "()"), "\x01"));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->dtype, DType::kBool);
}

TEST(ParseNpy, AcceptsVersions2And3) {
  const std::string h = Dict("'<i2'", "False", "(2,)");
  for (int major : {2, 3}) {
    Result<NpyArray> a = ParseNpy(NpyFile(h, "abcd", major));
    ASSERT_TRUE(a.ok()) << major << a.status().ToString();
    EXPECT_EQ(a->dtype, DType::kInt16);
    EXPECT_EQ(a->data, "abcd");
  }
}

TEST(ParseNpy, AcceptsSixtyFourDimensionsAndEmptyHugeArrays) {
  std::string shape = "(";
  for (int i = 0; i < 64; ++i) shape += "1, ";
  Result<NpyArray> a = ParseNpy(NpyFile(Dict("'<f4'", "False", shape + ")"), "abcd"));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->shape.size(), 64u);
  // Zero elements, whatever the other dimensions say.
  Result<NpyArray> e =
      ParseNpy(NpyFile(Dict("'<f8'", "False", "(0, 9223372036854775807, 9223372036854775807)")));
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_TRUE(e->data.empty());
}

// ---------------------------------------------------------------- truncation

TEST(ParseNpy, EveryTruncationIsRefused) {
  NpyArray scalar;
  scalar.dtype = DType::kUInt16;
  scalar.data = "xy";
  for (const std::string& file :
       {GoldenFloat32(), SerializeNpy(scalar), NpyFile(Dict("'<f4'", "False", "(2, 3)"),
                                                       Pattern(24), 2)}) {
    ASSERT_TRUE(ParseNpy(file).ok());
    for (size_t n = 0; n < file.size(); ++n) {
      Result<NpyArray> r = ParseNpy(std::string_view(file).substr(0, n));
      ASSERT_FALSE(r.ok()) << n;
      EXPECT_EQ(r.status().code(), StatusCode::kDataLoss) << n << r.status().ToString();
    }
  }
}

TEST(ParseNpy, TruncationMessages) {
  EXPECT_EQ(ParseError("", StatusCode::kDataLoss),
            "truncated .npy file: 0 bytes, shorter than the 10-byte preamble "
            "(magic, version, header length)");
  EXPECT_EQ(ParseError(std::string("\x93NUMPY\x01\x00\x76", 9), StatusCode::kDataLoss),
            "truncated .npy file: 9 bytes, shorter than the 10-byte preamble "
            "(magic, version, header length)");
  EXPECT_EQ(ParseError(std::string("\x93NUMPY\x02\x00\x76\x00\x00", 11), StatusCode::kDataLoss),
            "truncated .npy file: 11 bytes, shorter than the 12-byte preamble "
            "(magic, version, header length)");
  EXPECT_EQ(ParseError(GoldenFloat32().substr(0, 100), StatusCode::kDataLoss),
            "the .npy header length 118 is bigger than the file: only 90 bytes follow the "
            "10-byte preamble");
  EXPECT_EQ(ParseError(GoldenFloat32().substr(0, 150), StatusCode::kDataLoss),
            "truncated .npy data: float32 [2, 3] needs 24 bytes but only 22 follow the header");
}

// A lying header must be refused from the lengths alone, not by trying to
// allocate what it claims.
TEST(ParseNpy, LyingLengthsAllocateNothing) {
  EXPECT_EQ(ParseError(Preamble(2, 0, 0xFFFFFFFF) + "{}", StatusCode::kDataLoss),
            "the .npy header length 4294967295 is bigger than the file: only 2 bytes follow the "
            "12-byte preamble");
  EXPECT_EQ(ParseError(NpyFile(Dict("'<f8'", "False", "(1000000000, 1000000000)")),
                       StatusCode::kDataLoss),
            "truncated .npy data: float64 [1000000000, 1000000000] needs 8000000000000000000 "
            "bytes but only 0 follow the header");
}

TEST(ParseNpy, TrailingBytes) {
  EXPECT_EQ(ParseError(GoldenFloat32() + "zz", StatusCode::kInvalidArgument),
            "the .npy file has 2 trailing bytes after the 24 bytes of float32 [2, 3] data");
}

// Random byte changes in the preamble and header: any result, but no crash
// (the sanitizer and fuzz builds check the rest).
TEST(ParseNpy, RandomMutationsAreHandled) {
  const std::string golden = GoldenFloat32();
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) {
    std::string bytes = golden;
    const int changes = 1 + static_cast<int>(rng() % 4);
    for (int c = 0; c < changes; ++c) {
      const char alphabet[] = "{}()[],:' \"\n-0123456789TrueFalsdcp<>|f4\x00\xFF";
      bytes[rng() % 128] = alphabet[rng() % (sizeof(alphabet) - 1)];
    }
    Result<NpyArray> r = ParseNpy(bytes);
    if (r.ok()) {
      EXPECT_EQ(r->data.size(), *ByteSize(r->dtype, r->shape));
    }
  }
}

// ---------------------------------------------------------------- preamble errors

TEST(ParseNpy, BadMagic) {
  const std::string message = "not an .npy file: it does not start with \"\\x93NUMPY\"";
  for (const std::string& bytes : {std::string("PK\x03\x04 a zip file", 16),
                                   std::string("\x93NUMPZ\x01\x00\x00\x00", 10),
                                   std::string("NUMPY"), std::string("\x93", 1) + "X"}) {
    EXPECT_EQ(ParseError(bytes, StatusCode::kInvalidArgument), message);
  }
}

TEST(ParseNpy, UnsupportedVersion) {
  const std::string h = Dict("'<f4'", "False", "()");
  EXPECT_EQ(ParseError(Preamble(4, 0, h.size()) + h + "abcd", StatusCode::kFailedPrecondition),
            "unsupported .npy format version 4.0 (supported: 1.0, 2.0, 3.0)");
  EXPECT_EQ(ParseError(Preamble(1, 1, h.size()) + h + "abcd", StatusCode::kFailedPrecondition),
            "unsupported .npy format version 1.1 (supported: 1.0, 2.0, 3.0)");
  EXPECT_EQ(ParseError(Preamble(0, 0, 0), StatusCode::kFailedPrecondition),
            "unsupported .npy format version 0.0 (supported: 1.0, 2.0, 3.0)");
}

// ---------------------------------------------------------------- header errors

struct HeaderCase {
  std::string header;
  StatusCode code;
  std::string message;
};

void ExpectHeaderErrors(const std::vector<HeaderCase>& cases) {
  for (const HeaderCase& c : cases) {
    EXPECT_EQ(ParseError(NpyFile(c.header, "abcd"), c.code), c.message) << c.header;
  }
}

TEST(ParseNpy, HeaderNotADict) {
  ExpectHeaderErrors({
      {"", StatusCode::kInvalidArgument, "the .npy header is not a dict: it is empty"},
      {"   \n", StatusCode::kInvalidArgument, "the .npy header is not a dict: it is empty"},
      {"[1, 2]\n", StatusCode::kInvalidArgument,
       "the .npy header is not a dict: it starts with '[1, 2]\\x0a'"},
      {"dict(descr='<f4', fortran_order=False, shape=())", StatusCode::kInvalidArgument,
       "the .npy header is not a dict: it starts with 'dict(descr='<f4'...'"},
  });
}

TEST(ParseNpy, MalformedHeader) {
  // The header starts at byte 10.
  ExpectHeaderErrors({
      {"{descr: '<f4'}", StatusCode::kInvalidArgument,
       "malformed .npy header at byte 11: expected a quoted key or '}'"},
      {"{'descr' '<f4'}", StatusCode::kInvalidArgument,
       "malformed .npy header at byte 19: expected ':' after the key 'descr'"},
      {"{'descr': '<f4' 'shape': ()}", StatusCode::kInvalidArgument,
       "malformed .npy header at byte 26: expected ',' or '}' after the value of 'descr'"},
      {"{'descr': '<f4", StatusCode::kInvalidArgument,
       "malformed .npy header at byte 24: unterminated string"},
      {"{'descr': '<f4\n', 'fortran_order': False, 'shape': ()}", StatusCode::kInvalidArgument,
       "malformed .npy header at byte 24: unterminated string"},
      {"{'descr': '<\\x66\\x34'}", StatusCode::kInvalidArgument,
       "malformed .npy header at byte 22: escape sequences are not supported in header strings"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ()} x", StatusCode::kInvalidArgument,
       "malformed .npy header at byte 64: unexpected text after the closing '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ()}}", StatusCode::kInvalidArgument,
       "malformed .npy header at byte 63: unexpected text after the closing '}'"},
      {"{'descr': '<f4',, 'fortran_order': False, 'shape': ()}", StatusCode::kInvalidArgument,
       "malformed .npy header at byte 26: expected a quoted key or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}", StatusCode::kInvalidArgument,
       "malformed .npy header at byte 63: expected ',' or ')' in the shape"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (02,)}", StatusCode::kInvalidArgument,
       "malformed .npy header at byte 61: integer with a leading zero"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,", StatusCode::kInvalidArgument,
       "the .npy header's 'shape' must be a tuple of integers such as (2, 3)"},
  });
}

TEST(ParseNpy, MissingUnknownAndRepeatedKeys) {
  ExpectHeaderErrors({
      {"{}", StatusCode::kInvalidArgument, "the .npy header has no 'descr' key"},
      {"{'descr': '<f4', 'shape': ()}", StatusCode::kInvalidArgument,
       "the .npy header has no 'fortran_order' key"},
      {"{'descr': '<f4', 'fortran_order': False}", StatusCode::kInvalidArgument,
       "the .npy header has no 'shape' key"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (), 'extra': 1}",
       StatusCode::kInvalidArgument,
       "unknown key 'extra' in the .npy header (expected 'descr', 'fortran_order' and 'shape')"},
      {"{'Descr': '<f4'}", StatusCode::kInvalidArgument,
       "unknown key 'Descr' in the .npy header (expected 'descr', 'fortran_order' and 'shape')"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}",
       StatusCode::kInvalidArgument, "the key 'descr' appears twice in the .npy header"},
  });
}

TEST(ParseNpy, WronglyTypedValues) {
  const std::string not_tuple =
      "the .npy header's 'shape' must be a tuple of integers such as (2, 3)";
  ExpectHeaderErrors({
      {Dict("4", "False", "()"), StatusCode::kInvalidArgument,
       "the .npy header's 'descr' must be a string such as '<f4'"},
      {Dict("'<f4'", "0", "()"), StatusCode::kInvalidArgument,
       "the .npy header's 'fortran_order' must be True or False"},
      {Dict("'<f4'", "'False'", "()"), StatusCode::kInvalidArgument,
       "the .npy header's 'fortran_order' must be True or False"},
      {Dict("'<f4'", "Falsey", "()"), StatusCode::kInvalidArgument,
       "the .npy header's 'fortran_order' must be True or False"},
      {Dict("'<f4'", "False", "[2, 3]"), StatusCode::kInvalidArgument, not_tuple},
      {Dict("'<f4'", "False", "6"), StatusCode::kInvalidArgument, not_tuple},
      {Dict("'<f4'", "False", "(2.5,)"), StatusCode::kInvalidArgument, not_tuple},
      {Dict("'<f4'", "False", "(2L,)"), StatusCode::kInvalidArgument, not_tuple},
      {Dict("'<f4'", "False", "('2',)"), StatusCode::kInvalidArgument, not_tuple},
      {Dict("'<f4'", "False", "(,)"), StatusCode::kInvalidArgument, not_tuple},
      {Dict("'<f4'", "False", "(-,)"), StatusCode::kInvalidArgument, not_tuple},
      {Dict("'<f4'", "False", "(1)"), StatusCode::kInvalidArgument,
       "the .npy header's 'shape' must be a tuple; write a 1-D shape as (3,), not (3)"},
  });
}

// ---------------------------------------------------------------- unsupported content

TEST(ParseNpy, BigEndian) {
  ExpectHeaderErrors({
      {Dict("'>f4'", "False", "(1,)"), StatusCode::kUnimplemented,
       "big-endian data is not supported; save with dtype '<f4'"},
      {Dict("'>i8'", "False", "()"), StatusCode::kUnimplemented,
       "big-endian data is not supported; save with dtype '<i8'"},
  });
}

TEST(ParseNpy, NoExplicitByteOrder) {
  ExpectHeaderErrors({
      {Dict("'=f4'", "False", "(1,)"), StatusCode::kUnimplemented,
       "the .npy descr '=f4' has no explicit byte order; save with dtype '<f4'"},
      {Dict("'|u2'", "False", "(2,)"), StatusCode::kUnimplemented,
       "the .npy descr '|u2' has no explicit byte order; save with dtype '<u2'"},
  });
}

TEST(ParseNpy, UnsupportedDescr) {
  const std::string s = std::string(" ") + kSupported;
  ExpectHeaderErrors({
      {Dict("'|O'", "False", "(1,)"), StatusCode::kUnimplemented,
       "unsupported .npy descr '|O'" + s},
      {Dict("'O'", "False", "(1,)"), StatusCode::kUnimplemented,
       "unsupported .npy descr 'O'" + s},
      {Dict("'<c8'", "False", "()"), StatusCode::kUnimplemented,
       "unsupported .npy descr '<c8'" + s},
      {Dict("'<U1'", "False", "()"), StatusCode::kUnimplemented,
       "unsupported .npy descr '<U1'" + s},
      {Dict("'f4'", "False", "()"), StatusCode::kUnimplemented,
       "unsupported .npy descr 'f4'" + s},
      {Dict("''", "False", "()"), StatusCode::kUnimplemented, "unsupported .npy descr ''" + s},
      {Dict("'<f4\x01'", "False", "()"), StatusCode::kUnimplemented,
       "unsupported .npy descr '<f4\\x01'" + s},
      {Dict("[('a', '<f4'), ('b', '<i4')]", "False", "()"), StatusCode::kUnimplemented,
       "structured .npy arrays (a list 'descr') are not supported"},
  });
}

TEST(ParseNpy, FortranOrder) {
  ExpectHeaderErrors({{Dict("'<f4'", "True", "(1,)"), StatusCode::kUnimplemented,
                       "Fortran-order arrays are not supported; save with "
                       "numpy.ascontiguousarray"}});
}

TEST(ParseNpy, BadDimensions) {
  std::string too_many = "(";
  for (int i = 0; i < 65; ++i) too_many += "1, ";
  ExpectHeaderErrors({
      {Dict("'<f4'", "False", "(2, -3)"), StatusCode::kInvalidArgument,
       "shape [2, -3]: dimension 1 is negative"},
      {Dict("'<f4'", "False", "(99999999999999999999,)"), StatusCode::kOutOfRange,
       "the .npy shape dimension '99999999999999999999' is too large"},
      {Dict("'<f4'", "False", "(9223372036854775808,)"), StatusCode::kOutOfRange,
       "the .npy shape dimension '9223372036854775808' is too large"},
      {Dict("'<f4'", "False", "(-9223372036854775808,)"), StatusCode::kOutOfRange,
       "the .npy shape dimension '-9223372036854775808' is too large"},
      {Dict("'<f4'", "False", "(4294967296, 4294967296, 2)"), StatusCode::kOutOfRange,
       "shape [4294967296, 4294967296, 2]: element count overflows 64 bits"},
      {Dict("'<f8'", "False", "(2305843009213693952,)"), StatusCode::kOutOfRange,
       "float64 [2305843009213693952]: byte size overflows 64 bits"},
      {Dict("'<f4'", "False", too_many + ")"), StatusCode::kOutOfRange,
       "the .npy shape has more than 64 dimensions"},
  });
}

// ---------------------------------------------------------------- files

TEST(ReadNpyFile, Errors) {
  const std::string missing = TempPath("missing.npy");
  Result<NpyArray> r = ReadNpyFile(missing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(), "'" + missing + "' does not exist");

  const std::string path = TempPath("read_errors.npy");
  ASSERT_TRUE(WriteNpyFile(path, GoldenArray()).ok());
  r = ReadNpyFile(path, 151);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(r.status().message(), "'" + path + "' is larger than the limit of 151 bytes");
  EXPECT_TRUE(ReadNpyFile(path, 152).ok());

  std::ofstream(path, std::ios::binary) << GoldenFloat32().substr(0, 140);
  r = ReadNpyFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(r.status().message(), "'" + path +
                                      "': truncated .npy data: float32 [2, 3] needs 24 bytes "
                                      "but only 12 follow the header");

  r = ReadNpyFile(TempPath(""));  // a directory
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIoError);
}

TEST(ReadNpyFile, ReadsFromAPipe) {
  const std::string src = TempPath("pipe_source.npy");
  const std::string fifo = TempPath("pipe.npy");
  std::ofstream(src, std::ios::binary) << GoldenFloat32();
  for (uint64_t limit : {uint64_t{4} << 30, uint64_t{100}}) {
    unlink(fifo.c_str());
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    // popen does not wait: cat blocks opening the FIFO until ReadNpyFile does.
    FILE* writer = popen(("cat '" + src + "' > '" + fifo + "' 2>/dev/null").c_str(), "r");
    ASSERT_NE(writer, nullptr);
    Result<NpyArray> r = ReadNpyFile(fifo, limit);
    pclose(writer);
    if (limit == 100) {
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
      EXPECT_EQ(r.status().message(), "'" + fifo + "' is larger than the limit of 100 bytes");
    } else {
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(r->data, GoldenArray().data);
    }
  }
  unlink(fifo.c_str());
}

TEST(WriteNpyFile, RefusesInvalidArraysAndLeavesNoFile) {
  const std::string path = TempPath("refused.npy");
  unlink(path.c_str());
  NpyArray bf16;
  bf16.dtype = DType::kBFloat16;
  bf16.shape = {1};
  bf16.data = "ab";
  Status s = WriteNpyFile(path, bf16);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(), "cannot write '" + path +
                             "': bfloat16 has no NumPy dtype and cannot be stored in .npy; "
                             "convert it to float32");

  NpyArray short_data = GoldenArray();
  short_data.data.pop_back();
  s = WriteNpyFile(path, short_data);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "cannot write '" + path + "': float32 [2, 3] needs 24 bytes of data but has 23");

  NpyArray negative;
  negative.dtype = DType::kInt8;
  negative.shape = {-1};
  s = WriteNpyFile(path, negative);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "cannot write '" + path + "': shape [-1]: dimension 0 is negative");

  NpyArray deep;
  deep.dtype = DType::kInt8;
  deep.shape.assign(65, 1);
  deep.data = "x";
  s = WriteNpyFile(path, deep);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(), "cannot write '" + path +
                             "': a shape with 65 dimensions cannot be stored in .npy (at most 64)");
  EXPECT_FALSE(Exists(path));
}

// ---------------------------------------------------------------- numpy itself

// Files written by numpy must parse, and SerializeNpy must reproduce them
// byte for byte. NumPy comes from scripts/setup.sh (python3-numpy) and is
// required: Debian's interpreter, not whichever python3 is first on PATH.
TEST(Npy, MatchesNumpy) {
  ASSERT_EQ(std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1"), 0)
      << "/usr/bin/python3 cannot import numpy: run scripts/setup.sh (python3-numpy)";
  const std::string script = TempPath("npy_cases.py");
  // The last shape has no elements but a product of its other dimensions
  // beyond int64, which NumPy refuses to allocate ("array is too big"); its
  // file is written by NumPy's own header writer followed by no data, which is
  // exactly what np.save writes for an empty array.
  std::ofstream(script) << R"(import io, sys, numpy as np
cases = [('<f4', (2, 3)), ('|i1', ()), ('|b1', (3,)), ('<u2', (0,)), ('<f2', (2, 2)),
         ('<f8', (1, 10)), ('<i8', (2, 3, 4)), ('|u1', (123456, 0)), ('<i4', (5,)),
         ('<u4', (1, 1, 1)), ('<u8', (7,)), ('<i2', ())]
for descr, shape in cases:
    n = int(np.prod(shape))
    a = (np.arange(n) % 3).astype(np.dtype(descr)).reshape(shape)
    buf = io.BytesIO()
    np.save(buf, a)
    print(buf.getvalue().hex())
buf = io.BytesIO()
np.lib.format.write_array_header_1_0(buf, {'descr': '<f4', 'fortran_order': False,
    'shape': (0, 1, 1000000000, 10000000000, 10000000000)})
print(buf.getvalue().hex())
)";
  FILE* p = popen(("/usr/bin/python3 '" + script + "'").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ASSERT_EQ(pclose(p), 0);
  std::istringstream lines(out);
  std::string hex;
  int count = 0;
  while (std::getline(lines, hex)) {
    std::string bytes;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) {
      bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    }
    Result<NpyArray> a = ParseNpy(bytes);
    ASSERT_TRUE(a.ok()) << count << ": " << a.status().ToString();
    EXPECT_EQ(SerializeNpy(*a), bytes) << count;
    ++count;
  }
  EXPECT_EQ(count, 13);
  // numpy's float32 2x3 with values 0, 1, 2, 0, 1, 2 differs from the golden
  // array only in its data.
  std::ofstream(script) << "import io, numpy as np\nb = io.BytesIO()\n"
                           "np.save(b, np.arange(6, dtype='<f4').reshape(2, 3))\n"
                           "print(b.getvalue().hex())\n";
  p = popen(("/usr/bin/python3 '" + script + "'").c_str(), "r");
  ASSERT_NE(p, nullptr);
  out.clear();
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ASSERT_EQ(pclose(p), 0);
  std::string golden_hex;
  for (unsigned char c : GoldenFloat32()) {
    char h[3];
    std::snprintf(h, sizeof h, "%02x", c);
    golden_hex += h;
  }
  EXPECT_EQ(out, golden_hex + "\n");
}

}  // namespace
}  // namespace mlf
