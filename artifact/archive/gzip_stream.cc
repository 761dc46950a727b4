#include "artifact/archive/gzip_stream.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace mlf {
namespace {

// Maximum window, gzip wrapper only: zlib then parses the header and checks
// the trailer itself, and refuses zlib-wrapped or raw deflate data.
constexpr int kGzipWindowBits = 15 + 16;

// zlib's message for a data error, in terms of the gzip format. Deflate
// errors keep one wording whatever zlib's reason: the reason ("invalid block
// type", "invalid distance too far back") means nothing to a user.
std::string DataErrorDetail(const char* zlib_message) {
  const std::string m = zlib_message != nullptr ? zlib_message : "";
  if (m == "incorrect data check") return "CRC-32 mismatch in the gzip trailer";
  if (m == "incorrect length check") return "ISIZE (length) mismatch in the gzip trailer";
  if (m == "incorrect header check" || m == "unknown compression method" ||
      m == "unknown header flags set" || m == "header crc mismatch") {
    return "bad gzip header: " + m;
  }
  return "gzip decompression failed";
}

}  // namespace

GzipStream::GzipStream(SourceReader* input)
    : input_(input),
      z_(new z_stream_s()),
      in_(new unsigned char[kBufferSize]),
      out_(new unsigned char[kBufferSize]) {}

Result<std::unique_ptr<GzipStream>> GzipStream::Create(SourceReader* input) {
  std::unique_ptr<GzipStream> s(new GzipStream(input));
  if (inflateInit2(s->z_.get(), kGzipWindowBits) != Z_OK) {
    return Internal("cannot initialise zlib for gzip decompression");
  }
  s->z_ready_ = true;
  s->z_->next_in = s->in_.get();
  s->z_->avail_in = 0;
  return s;
}

GzipStream::~GzipStream() {
  if (z_ready_) inflateEnd(z_.get());
}

Status GzipStream::Read(const void** data, size_t* size) {
  *data = out_.get();
  *size = 0;
  if (!error().ok()) return error();
  z_->next_out = out_.get();
  z_->avail_out = static_cast<uInt>(kBufferSize);
  while (z_->avail_out > 0 && phase_ != Phase::kEnd) {
    if (!Step().ok()) break;  // in error(): returned now only if there is no output
  }
  *size = kBufferSize - z_->avail_out;
  CountOut(*size);
  return *size > 0 ? Status::Ok() : error();
}

Status GzipStream::Step() { return phase_ == Phase::kMember ? Inflate() : StartNextMember(); }

Status GzipStream::Inflate() {
  MLF_RETURN_IF_ERROR(Fill(1));
  if (z_->avail_in == 0) {
    return Failed(Fault::kTruncated, DataLoss("truncated gzip input"));
  }
  const uInt before = z_->avail_in;
  const int r = inflate(z_.get(), Z_NO_FLUSH);
  CountIn(before - z_->avail_in);
  switch (r) {
    case Z_OK:
      return Status::Ok();
    case Z_STREAM_END:  // the member's CRC-32 and ISIZE matched
      phase_ = Phase::kBetweenMembers;
      return Status::Ok();
    case Z_DATA_ERROR:
    case Z_NEED_DICT:  // not possible in gzip; a corrupt header at worst
      return Failed(Fault::kCorrupt, DataLoss(DataErrorDetail(z_->msg)));
    case Z_MEM_ERROR:
      return Failed(Fault::kOther, Internal("zlib ran out of memory"));
    default:  // Z_BUF_ERROR cannot happen with input and output space left
      return Failed(Fault::kOther, Internal("zlib inflate failed (" + std::to_string(r) + ")"));
  }
}

// After a member: end of input, another member, or zero padding.
Status GzipStream::StartNextMember() {
  MLF_RETURN_IF_ERROR(Fill(2));
  const unsigned char* p = z_->next_in;
  if (z_->avail_in == 0) {
    phase_ = Phase::kEnd;
    return Status::Ok();
  }
  if (z_->avail_in >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
    inflateReset(z_.get());  // keeps the window bits: gzip only
    phase_ = Phase::kMember;
    return Status::Ok();
  }
  if (p[0] == 0) return SkipZeroPadding();
  return Failed(Fault::kCorrupt, DataLoss("trailing bytes after the gzip stream"));
}

Status GzipStream::SkipZeroPadding() {
  for (;;) {
    const unsigned char* p = z_->next_in;
    const unsigned char* end = p + z_->avail_in;
    if (std::find_if(p, end, [](unsigned char c) { return c != 0; }) != end) {
      return Failed(Fault::kCorrupt, DataLoss("trailing bytes after the gzip stream"));
    }
    CountIn(z_->avail_in);
    z_->next_in = in_.get();
    z_->avail_in = 0;
    MLF_RETURN_IF_ERROR(Fill(1));
    if (z_->avail_in == 0) break;
  }
  phase_ = Phase::kEnd;
  return Status::Ok();
}

// Reads until `need` unread bytes are buffered or the file ends; unread bytes
// move to the front of the buffer first (at most one byte, for the magic).
Status GzipStream::Fill(size_t need) {
  if (z_->avail_in >= need || eof_) return Status::Ok();
  memmove(in_.get(), z_->next_in, z_->avail_in);
  z_->next_in = in_.get();
  while (z_->avail_in < need && !eof_) {
    const Result<size_t> n = input_->Read(in_.get() + z_->avail_in, kBufferSize - z_->avail_in);
    if (!n.ok()) return Failed(Fault::kOther, n.status());
    if (*n == 0) eof_ = true;
    z_->avail_in += static_cast<uInt>(*n);
  }
  return Status::Ok();
}

}  // namespace mlf
