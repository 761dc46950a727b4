#include "artifact/archive/zstd_stream.h"

#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <string>

namespace mlf {

ZstdStream::ZstdStream(SourceReader* input)
    : input_(input),
      in_(new unsigned char[ZSTD_DStreamInSize()]),
      in_capacity_(ZSTD_DStreamInSize()),
      out_(new unsigned char[ZSTD_DStreamOutSize()]),
      out_capacity_(ZSTD_DStreamOutSize()) {}

Result<std::unique_ptr<ZstdStream>> ZstdStream::Create(SourceReader* input) {
  std::unique_ptr<ZstdStream> s(new ZstdStream(input));
  s->dctx_ = ZSTD_createDCtx();
  if (s->dctx_ == nullptr) return Internal("cannot initialise libzstd for zstd decompression");
  return s;
}

ZstdStream::~ZstdStream() {
  if (dctx_ != nullptr) ZSTD_freeDCtx(dctx_);
}

Status ZstdStream::Fill() {
  in_pos_ = 0;
  in_size_ = 0;
  const Result<size_t> n = input_->Read(in_.get(), in_capacity_);
  if (!n.ok()) return Failed(Fault::kOther, n.status());
  if (*n == 0) eof_ = true;
  in_size_ = *n;
  return Status::Ok();
}

Status ZstdStream::Read(const void** data, size_t* size) {
  *data = out_.get();
  *size = 0;
  if (!error().ok()) return error();
  ZSTD_outBuffer out{out_.get(), out_capacity_, 0};
  while (out.pos < out.size && !done_) {
    if (in_pos_ == in_size_ && !eof_) MLF_RETURN_IF_ERROR(Fill());
    if (in_pos_ == in_size_ && eof_ && !frame_open_) {
      done_ = true;
      break;
    }
    ZSTD_inBuffer in{in_.get(), in_size_, in_pos_};
    const size_t out_before = out.pos;
    const size_t r = ZSTD_decompressStream(dctx_, &out, &in);
    CountIn(in.pos - in_pos_);
    in_pos_ = in.pos;
    if (ZSTD_isError(r)) {
      return Failed(Fault::kCorrupt,
                    DataLoss(std::string("Zstd decompression failed: ") + ZSTD_getErrorName(r)));
    }
    frame_open_ = r != 0;
    // A frame ended: hand out its last bytes before looking at what follows,
    // so that an error there is reported after them.
    if (!frame_open_ && out.pos > 0) break;
    // No input left, room for output, and libzstd produced nothing: the
    // frame needs bytes the file does not have.
    if (frame_open_ && eof_ && in_pos_ == in_size_ && out.pos == out_before) {
      return Failed(Fault::kTruncated, DataLoss("Truncated zstd input"));
    }
  }
  *size = out.pos;
  CountOut(out.pos);
  return Status::Ok();
}

}  // namespace mlf
