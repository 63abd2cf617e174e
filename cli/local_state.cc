#include "cli/local_state.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace stampede::cli {
namespace {

constexpr size_t kTokenBytes = 32;
constexpr size_t kMaxTokenFile = 4096;

Status Errno(const std::string& path, const std::string& what) {
  return Status::FromErrno("token file " + path + ": " + what, errno);
}

StatusOr<std::string> RandomToken() {
  unsigned char raw[kTokenBytes];
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Error(std::string("/dev/urandom: ") + std::strerror(errno));
  ssize_t n = read(fd, raw, sizeof(raw));
  close(fd);
  if (n != ssize_t(sizeof(raw))) return Status::Error("/dev/urandom: short read");
  std::string hex;
  char buf[3];
  for (unsigned char c : raw) {
    std::snprintf(buf, sizeof(buf), "%02x", c);
    hex += buf;
  }
  return hex;
}

// The file's first line; the file must be ours and closed to others when
// `private_only`.
StatusOr<std::string> ReadTokenFile(const std::string& path, bool private_only) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return Errno(path, "cannot open");
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return Status::Invalid("token file " + path + ": not a regular file");
  }
  if (private_only && (st.st_uid != geteuid() || (st.st_mode & 077) != 0)) {
    close(fd);
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", unsigned(st.st_mode & 07777));
    return Status::Denied("token file " + path + " must belong to this user and be readable by no one else (mode " +
                          mode + "): chmod 600 " + path);
  }
  std::string text(kMaxTokenFile, '\0');
  ssize_t n = read(fd, text.data(), text.size());
  close(fd);
  if (n < 0) return Errno(path, "cannot read");
  text.resize(size_t(n));
  text = text.substr(0, text.find_first_of("\r\n"));
  if (text.size() < 16) return Status::Invalid("token file " + path + ": holds no token (16 or more characters)");
  return text;
}

}  // namespace

std::string StateDir() {
  if (const char* d = std::getenv("STATE_DIRECTORY")) return d;
  if (geteuid() == 0) return "/var/lib/stampede";
  if (const char* d = std::getenv("XDG_STATE_HOME")) return std::string(d) + "/stampede";
  if (const char* h = std::getenv("HOME")) return std::string(h) + "/.local/state/stampede";
  return "stampede-state";
}

std::string DefaultSpoolDir() { return StateDir() + "/spool"; }
std::string DefaultTokenPath() { return StateDir() + "/coordinator.token"; }

StatusOr<std::string> LoadOrCreateToken(const std::string& path) {
  if (access(path.c_str(), F_OK) == 0) return ReadTokenFile(path, true);
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return Status::FromErrno("token file " + path + ": cannot create " + dir.string(), ec.value());
    if (chmod(dir.c_str(), 0700) != 0 && errno != EPERM) return Errno(dir.string(), "chmod");
  }
  auto token = RandomToken();
  if (!token.ok()) return token.status();
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return ReadTokenFile(path, true);  // another coordinator just made it
    return Errno(path, "cannot create");
  }
  const std::string line = *token + "\n";
  const bool written = write(fd, line.data(), line.size()) == ssize_t(line.size());
  close(fd);
  if (!written) return Errno(path, "cannot write");
  return *token;
}

StatusOr<std::string> ReadToken(const std::string& path) {
  if (access(path.c_str(), F_OK) != 0) return std::string();
  return ReadTokenFile(path, false);
}

}  // namespace stampede::cli
