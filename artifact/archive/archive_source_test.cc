#include "artifact/archive/archive_source.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "artifact/base/testing/test_files.h"

namespace mlf {
namespace {

using testutil::FreshDir;
using testutil::WriteFile;

// Everything `reader` yields through Next(), in blocks of at most `block`.
std::string Drain(SourceReader& reader, size_t block) {
  std::string out;
  for (;;) {
    const void* data = nullptr;
    Result<size_t> n = reader.Next(&data, block);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    if (!n.ok() || *n == 0) return out;
    EXPECT_LE(*n, block);
    out.append(static_cast<const char*>(data), *n);
  }
}

std::string Content() {
  std::string s;
  for (int i = 0; i < 70000; ++i) s += static_cast<char>('a' + i % 26);
  return s;
}

// The same bytes, the same identity and the same reading behaviour from
// every kind of rereadable source.
void ExpectRereadable(const ArchiveSource& source, const std::string& content,
                      const std::string& name) {
  EXPECT_EQ(source.name(), name);
  EXPECT_EQ(source.size(), content.size());
  EXPECT_TRUE(source.rereadable());
  for (int pass = 0; pass < 2; ++pass) {  // from the start more than once
    Result<std::unique_ptr<SourceReader>> reader = source.NewReader();
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ(Drain(**reader, 4096), content);
    EXPECT_EQ((*reader)->offset(), content.size());
  }
  // Two readers at once keep their own positions.
  auto a = source.NewReader();
  auto b = source.NewReader();
  ASSERT_TRUE(a.ok() && b.ok());
  char x[10], y[5];
  ASSERT_EQ(*(*a)->Read(x, sizeof x), sizeof x);
  ASSERT_EQ(*(*b)->Read(y, sizeof y), sizeof y);
  EXPECT_EQ(std::string(x, sizeof x), content.substr(0, 10));
  EXPECT_EQ(std::string(y, sizeof y), content.substr(0, 5));
  // Skipping never passes the end; reading resumes after the skip.
  EXPECT_EQ((*a)->Skip(100), 100u);
  ASSERT_EQ(*(*a)->Read(x, sizeof x), sizeof x);
  EXPECT_EQ(std::string(x, sizeof x), content.substr(110, 10));
  EXPECT_EQ((*a)->Skip(uint64_t{1} << 40), content.size() - 120);
  EXPECT_EQ(*(*a)->Read(x, sizeof x), 0u);
  // Reads at an offset, short only at the end.
  char tail[8];
  EXPECT_EQ(*source.ReadAt(content.size() - 3, tail, sizeof tail), 3u);
  EXPECT_EQ(std::string(tail, 3), content.substr(content.size() - 3));
  EXPECT_EQ(*source.ReadAt(content.size() + 5, tail, sizeof tail), 0u);
}

TEST(ArchiveSourceTest, FileIsOpenedOnceAndReadFromTheStartAgain) {
  const std::string dir = FreshDir("source_file");
  const std::string path = dir + "/a.tar";
  WriteFile(path, Content());
  Result<std::unique_ptr<ArchiveSource>> source = ArchiveSource::OpenFile(path);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  EXPECT_EQ((*source)->kind(), ArchiveSource::Kind::kFile);
  EXPECT_GE((*source)->fd(), 0);
  EXPECT_EQ((*source)->memory(), nullptr);
  // The path may now name another file: the source reads the one it opened.
  ASSERT_EQ(rename(path.c_str(), (dir + "/moved.tar").c_str()), 0);
  WriteFile(path, "replaced");
  ExpectRereadable(**source, Content(), path);
}

TEST(ArchiveSourceTest, SmallFileIsReadInOneBlockOfItsOwnSize) {
  const std::string path = FreshDir("source_small") + "/a.tar";
  WriteFile(path, "0123456789");
  auto source = ArchiveSource::OpenFile(path);
  ASSERT_TRUE(source.ok());
  auto reader = (*source)->NewReader();
  ASSERT_TRUE(reader.ok());
  const void* data = nullptr;
  EXPECT_EQ(*(*reader)->Next(&data, 1 << 20), 10u);
  EXPECT_EQ(std::string(static_cast<const char*>(data), 10), "0123456789");
  EXPECT_EQ(*(*reader)->Next(&data, 1 << 20), 0u);
}

TEST(ArchiveSourceTest, MappedFile) {
  const std::string path = FreshDir("source_mapped") + "/a.tar";
  WriteFile(path, Content());
  auto source = ArchiveSource::MapFile(path);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  EXPECT_EQ((*source)->kind(), ArchiveSource::Kind::kMapped);
  ASSERT_NE((*source)->memory(), nullptr);
  EXPECT_GE((*source)->fd(), 0);
  ExpectRereadable(**source, Content(), path);
  // Next() points into the mapping: no copy.
  auto reader = (*source)->NewReader();
  const void* data = nullptr;
  ASSERT_EQ(*(*reader)->Next(&data, 100), 100u);
  EXPECT_EQ(data, (*source)->memory());
}

TEST(ArchiveSourceTest, EmptyFileMapsToNothing) {
  const std::string path = FreshDir("source_empty") + "/a.tar";
  WriteFile(path, "");
  auto source = ArchiveSource::MapFile(path);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  EXPECT_EQ((*source)->size(), 0u);
  auto reader = (*source)->NewReader();
  char c;
  EXPECT_EQ(*(*reader)->Read(&c, 1), 0u);
}

TEST(ArchiveSourceTest, MemoryOwnedAndBorrowed) {
  const std::string content = Content();
  std::unique_ptr<ArchiveSource> owned = ArchiveSource::Memory(content, "model (memory)");
  EXPECT_EQ(owned->kind(), ArchiveSource::Kind::kMemory);
  EXPECT_EQ(owned->fd(), -1);
  EXPECT_NE(owned->memory(), reinterpret_cast<const unsigned char*>(content.data()));
  ExpectRereadable(*owned, content, "model (memory)");

  std::unique_ptr<ArchiveSource> view = ArchiveSource::MemoryView(content, "view");
  EXPECT_EQ(view->memory(), reinterpret_cast<const unsigned char*>(content.data()));
  ExpectRereadable(*view, content, "view");
}

TEST(ArchiveSourceTest, StreamIsReadOnce) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  std::thread writer([fd = fds[1]] {
    const std::string data = "streamed bytes";
    EXPECT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
    close(fd);
  });
  Result<std::unique_ptr<ArchiveSource>> source = ArchiveSource::FromFd(fds[0], "<(curl)");
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  EXPECT_EQ((*source)->kind(), ArchiveSource::Kind::kStream);
  EXPECT_FALSE((*source)->rereadable());
  EXPECT_EQ((*source)->size(), 0u);
  char c;
  EXPECT_EQ((*source)->ReadAt(0, &c, 1).status().ToString(),
            "failed_precondition: archive '<(curl)' is a stream (a pipe or FIFO) and cannot be "
            "read at an offset");
  auto reader = (*source)->NewReader();
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->Skip(4), 0u);  // a stream is read, not skipped
  EXPECT_EQ(Drain(**reader, 4), "streamed bytes");
  writer.join();
  EXPECT_EQ((*source)->NewReader().status().ToString(),
            "failed_precondition: archive '<(curl)' is a stream (a pipe or FIFO) and was "
            "already read once");
}

TEST(ArchiveSourceTest, ErrorsNameThePathAsGiven) {
  const std::string dir = FreshDir("source_errors");
  EXPECT_EQ(ArchiveSource::OpenFile(dir + "/nope.tar").status().ToString(),
            "io_error: cannot open archive '" + dir + "/nope.tar': No such file or directory");
  EXPECT_EQ(ArchiveSource::OpenFile(dir).status().ToString(),
            "invalid_argument: '" + dir + "' is a directory, not an archive");
  EXPECT_EQ(ArchiveSource::MapFile(dir).status().ToString(),
            "invalid_argument: '" + dir + "' is a directory, not an archive");
  EXPECT_EQ(ArchiveSource::MapFile("/dev/null").status().ToString(),
            "invalid_argument: '/dev/null' is not a regular file (it cannot be mapped)");
}

}  // namespace
}  // namespace mlf
