#include "proto/grpc_status.h"

#include <array>
#include <utility>

namespace stampede {
namespace {

constexpr std::array<std::pair<StatusKind, grpc::StatusCode>, 8> kCodes = {{
    {StatusKind::kOk, grpc::StatusCode::OK},
    {StatusKind::kFailed, grpc::StatusCode::UNKNOWN},
    {StatusKind::kInvalidInput, grpc::StatusCode::INVALID_ARGUMENT},
    {StatusKind::kNotFound, grpc::StatusCode::NOT_FOUND},
    {StatusKind::kPermission, grpc::StatusCode::PERMISSION_DENIED},
    {StatusKind::kAlreadyExists, grpc::StatusCode::ALREADY_EXISTS},
    {StatusKind::kUnavailable, grpc::StatusCode::UNAVAILABLE},
    {StatusKind::kExhausted, grpc::StatusCode::RESOURCE_EXHAUSTED},
}};

}  // namespace

grpc::Status ToGrpc(const Status& s) {
  for (const auto& [kind, code] : kCodes) {
    if (kind == s.kind()) return code == grpc::StatusCode::OK ? grpc::Status::OK : grpc::Status(code, s.message());
  }
  return grpc::Status(grpc::StatusCode::UNKNOWN, s.message());
}

Status FromGrpc(const grpc::Status& s) {
  if (s.ok()) return Status::Ok();
  // FAILED_PRECONDITION: asked at the wrong time (a run still going): the
  // request was wrong for now.
  if (s.error_code() == grpc::StatusCode::FAILED_PRECONDITION) return Status::Invalid(s.error_message());
  for (const auto& [kind, code] : kCodes) {
    if (code == s.error_code()) return Status(kind, s.error_message());
  }
  return Status::Error(s.error_message());
}

}  // namespace stampede
