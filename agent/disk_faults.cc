#include "agent/disk_faults.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "proto/fault_action.h"

namespace stampede::agent {
namespace {

constexpr char kFillName[] = ".stampede-fill";

std::string Parent(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  const size_t slash = d.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : d.substr(0, slash);
}

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

StatusOr<std::string> FillPath(const std::string& data_dir) {
  struct stat dir, parent;
  if (stat(data_dir.c_str(), &dir) != 0) return Status::Error(Errno("data_dir " + data_dir));
  const std::string up = Parent(data_dir);
  if (stat(up.c_str(), &parent) == 0 && parent.st_dev == dir.st_dev && access(up.c_str(), W_OK) == 0) {
    return (up == "/" ? "" : up) + "/" + kFillName;
  }
  if (access(data_dir.c_str(), W_OK) == 0) return data_dir + "/" + kFillName;
  return Status::Error("cannot fill the disk of " + data_dir + ": neither it nor its parent is writable by this agent");
}

namespace {

// The filesystem's space left for unprivileged users.
StatusOr<uint64_t> Available(const std::string& data_dir) {
  struct statvfs fs;
  if (statvfs(data_dir.c_str(), &fs) != 0) return Status::Error(Errno("statvfs " + data_dir));
  return uint64_t(fs.f_bavail) * fs.f_frsize;
}

// Grows fd's allocation until only free_bytes are left. The database keeps
// writing meanwhile, so a request for all that was free may find less:
// then a little less is asked for, and what is free is read again.
Status Allocate(int fd, const std::string& data_dir, uint64_t free_bytes, uint64_t* size) {
  for (int round = 0; round < 64; ++round) {
    auto avail = Available(data_dir);
    if (!avail.ok()) return avail.status();
    if (*avail <= free_bytes) return Status::Ok();
    uint64_t want = *avail - free_bytes;
    while (fallocate(fd, 0, off_t(*size), off_t(want)) != 0) {
      if (errno != ENOSPC || want <= 4096)
        return Status::Error(Errno("fill: fallocate " + std::to_string(want) + " bytes"));
      want -= std::max<uint64_t>(want / 64, 4096);
    }
    *size += want;
  }
  return Status::Ok();
}

}  // namespace

Status Fill(const std::string& data_dir, uint64_t free_bytes, std::string* note) {
  if (free_bytes > kMaxFillFreeBytes) return Status::Error("fill: free is at most 1PiB");
  auto path = FillPath(data_dir);
  if (!path.ok()) return path.status();
  Status s = ReleaseFill(data_dir);
  if (!s.ok()) return s;
  auto avail = Available(data_dir);
  if (!avail.ok()) return avail.status();
  if (*avail <= free_bytes) {
    if (note) *note = "already " + std::to_string(*avail) + " bytes free, no more than asked";
    return Status::Ok();
  }
  const int fd = open(path->c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Error(Errno("fill: " + *path));
  uint64_t size = 0;
  s = Allocate(fd, data_dir, free_bytes, &size);
  close(fd);
  if (!s.ok()) {
    unlink(path->c_str());
    return Status::Error(s.message() + " in " + *path);
  }
  if (note) *note = "allocated " + std::to_string(size) + " bytes in " + *path;
  return Status::Ok();
}

Status ReleaseFill(const std::string& data_dir, bool* released) {
  if (released) *released = false;
  struct stat dir;
  if (stat(data_dir.c_str(), &dir) != 0 && errno == ENOENT) return Status::Ok();  // not there (yet): nothing filled
  auto path = FillPath(data_dir);
  if (!path.ok()) return path.status();
  if (unlink(path->c_str()) == 0) {
    if (released) *released = true;
    return Status::Ok();
  }
  return errno == ENOENT ? Status::Ok() : Status::Error(Errno("heal: remove " + *path));
}

}  // namespace stampede::agent
