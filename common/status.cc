#include "common/status.h"

#include <cerrno>
#include <cstring>

namespace stampede {

Status Status::FromErrno(const std::string& context, int err) {
  std::string message = context + ": " + std::strerror(err);
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return NotFound(std::move(message));
    case EACCES:
    case EPERM:
    case EROFS:
      return Denied(std::move(message));
    case EEXIST:
      return Exists(std::move(message));
    case EISDIR:
    case ENAMETOOLONG:
      return Invalid(std::move(message));
    default:
      return Error(std::move(message));  // a full disk, an I/O error: not the user's input
  }
}

}  // namespace stampede
