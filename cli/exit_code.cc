#include <iostream>

#include "cli/commands.h"

namespace stampede::cli {

int ExitCodeOf(const Status& s) {
  switch (s.kind()) {
    case StatusKind::kOk:
      return kExitOk;
    case StatusKind::kInvalidInput:
    case StatusKind::kNotFound:
    case StatusKind::kPermission:
    case StatusKind::kAlreadyExists:
      return kExitBadInput;
    case StatusKind::kFailed:
    case StatusKind::kUnavailable:
    case StatusKind::kExhausted:
      break;
  }
  return kExitFailed;
}

int Fail(const Status& s) {
  std::cerr << "stampede: " << s.message() << "\n";
  return ExitCodeOf(s);
}

}  // namespace stampede::cli
