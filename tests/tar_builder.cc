#include "tests/tar_builder.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace mlf {
namespace {

constexpr size_t kBlock = 512;

void PutString(std::string* h, size_t offset, size_t width, const std::string& value) {
  std::memcpy(&(*h)[offset], value.data(), std::min(width, value.size()));
}

// Octal, zero-padded to width-1 digits plus a NUL.
void PutOctal(std::string* h, size_t offset, size_t width, uint64_t value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*llo", static_cast<int>(width - 1),
                static_cast<unsigned long long>(value));
  std::string s(buf);
  if (s.size() > width - 1) s = s.substr(s.size() - (width - 1));  // caller's problem
  PutString(h, offset, width, s);
}

std::string Pad(std::string s) {
  if (s.size() % kBlock) s.append(kBlock - s.size() % kBlock, '\0');
  return s;
}

std::string PaxRecords(const std::vector<std::pair<std::string, std::string>>& records) {
  std::string out;
  for (const auto& [key, value] : records) {
    const std::string body = " " + key + "=" + value + "\n";
    size_t len = body.size() + 1;
    while (std::to_string(len).size() + body.size() != len) ++len;
    out += std::to_string(len) + body;
  }
  return out;
}

}  // namespace

TarEntry TarFile(const std::string& name, const std::string& data) {
  TarEntry e;
  e.name = name;
  e.data = data;
  return e;
}

std::string TarHeader(const TarEntry& e) {
  std::string h(kBlock, '\0');
  PutString(&h, 0, 100, e.name);
  PutOctal(&h, 100, 8, e.mode);
  PutOctal(&h, 108, 8, 0);
  PutOctal(&h, 116, 8, 0);
  PutOctal(&h, 124, 12, e.header_size.value_or(e.data.size()));
  PutOctal(&h, 136, 12, 0);
  h[156] = e.type;
  PutString(&h, 157, 100, e.linkname);
  PutString(&h, 257, 6, std::string("ustar\0", 6));
  PutString(&h, 263, 2, "00");
  PutOctal(&h, 329, 8, e.devmajor);
  PutOctal(&h, 337, 8, e.devminor);
  std::memset(&h[148], ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  char buf[8];
  std::snprintf(buf, sizeof buf, "%06o", sum);
  std::memcpy(&h[148], buf, 6);
  h[154] = '\0';
  h[155] = ' ';
  return h;
}

std::string TarEntryBytes(const TarEntry& e) {
  std::string out;
  if (!e.pax.empty()) {
    TarEntry pax;
    pax.name = "PaxHeaders/" + e.name.substr(0, 80);
    pax.type = 'x';
    pax.data = PaxRecords(e.pax);
    out += TarHeader(pax) + Pad(pax.data);
  }
  return out + TarHeader(e) + Pad(e.data);
}

std::string BuildTar(const std::vector<TarEntry>& entries, bool end_blocks) {
  std::string out;
  for (const TarEntry& e : entries) out += TarEntryBytes(e);
  if (end_blocks) out.append(2 * kBlock, '\0');
  return out;
}

std::string GzipCompress(const std::string& data, int level) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(&out[0]);
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("deflate failed");
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string ZstdCompress(const std::string& data, int level) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const size_t n = ZSTD_compress2(cctx, &out[0], out.size(), data.data(), data.size());
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(n)) throw std::runtime_error(ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

ZstdFileWriter::ZstdFileWriter(const std::string& path, int level)
    : cctx_(ZSTD_createCCtx()), file_(std::fopen(path.c_str(), "wb")) {
  if (file_ == nullptr) throw std::runtime_error("cannot create " + path);
  ZSTD_CCtx_setParameter(static_cast<ZSTD_CCtx*>(cctx_), ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(static_cast<ZSTD_CCtx*>(cctx_), ZSTD_c_checksumFlag, 1);
  out_buf_.resize(ZSTD_CStreamOutSize());
}

ZstdFileWriter::~ZstdFileWriter() {
  if (file_ != nullptr) std::fclose(file_);
  ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(cctx_));
}

void ZstdFileWriter::Pump(const void* data, size_t size, bool end) {
  ZSTD_inBuffer in{data, size, 0};
  for (;;) {
    ZSTD_outBuffer out{&out_buf_[0], out_buf_.size(), 0};
    const size_t left = ZSTD_compressStream2(static_cast<ZSTD_CCtx*>(cctx_), &out, &in,
                                             end ? ZSTD_e_end : ZSTD_e_continue);
    if (ZSTD_isError(left)) throw std::runtime_error(ZSTD_getErrorName(left));
    if (out.pos > 0 && std::fwrite(out.dst, 1, out.pos, file_) != out.pos) {
      throw std::runtime_error("write failed");
    }
    written_ += out.pos;
    if (end ? left == 0 : in.pos == in.size) return;
  }
}

void ZstdFileWriter::Write(const void* data, size_t size) { Pump(data, size, false); }

void ZstdFileWriter::WriteZeros(uint64_t count) {
  static const std::string zeros(1 << 20, '\0');
  while (count > 0) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(count, zeros.size()));
    Pump(zeros.data(), n, false);
    count -= n;
  }
}

uint64_t ZstdFileWriter::Close() {
  Pump(nullptr, 0, true);
  std::fclose(file_);
  file_ = nullptr;
  return written_;
}

}  // namespace mlf
