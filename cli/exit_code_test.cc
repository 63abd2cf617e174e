#include <gtest/gtest.h>

#include "cli/commands.h"
#include "proto/grpc_status.h"

namespace stampede::cli {
namespace {

TEST(ExitCodeTest, TheUsersToFixIsBadInputAnythingElseFailed) {
  EXPECT_EQ(ExitCodeOf(Status::Ok()), kExitOk);
  for (const Status& s : {Status::Invalid("x"), Status::NotFound("x"), Status::Denied("x"), Status::Exists("x")}) {
    EXPECT_EQ(ExitCodeOf(s), kExitBadInput) << s.message();
  }
  for (const Status& s : {Status::Error("x"), Status::Unavailable("x"), Status::Exhausted("x")}) {
    EXPECT_EQ(ExitCodeOf(s), kExitFailed);
  }
  EXPECT_EQ(ExitCodeOf(Status::FromErrno("results", ENOSPC)), kExitFailed);  // a full disk is not the user's input
}

// What the coordinator answers is what the agent and the submitter decide on.
TEST(ExitCodeTest, AKindCrossesTheWireUnchanged) {
  for (StatusKind k : {StatusKind::kFailed, StatusKind::kInvalidInput, StatusKind::kNotFound, StatusKind::kPermission,
                       StatusKind::kAlreadyExists, StatusKind::kUnavailable, StatusKind::kExhausted}) {
    const Status back = FromGrpc(ToGrpc(Status(k, "why")));
    EXPECT_EQ(back.kind(), k);
    EXPECT_EQ(back.message(), "why");
  }
  EXPECT_TRUE(ToGrpc(Status::Ok()).ok());
  EXPECT_TRUE(FromGrpc(grpc::Status::OK).ok());
  EXPECT_EQ(FromGrpc(grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "late")).kind(), StatusKind::kFailed);
}

}  // namespace
}  // namespace stampede::cli
