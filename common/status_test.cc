#include "common/status.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace stampede {
namespace {

TEST(StatusTest, KindsAndContext) {
  EXPECT_TRUE(Status::Ok().ok());
  EXPECT_EQ(Status::Ok().kind(), StatusKind::kOk);
  EXPECT_EQ(Status::Error("x").kind(), StatusKind::kFailed);
  const Status s = Status::Invalid("phases[0].workers: expected 1 to 100000").WithContext("plan.yaml");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.kind(), StatusKind::kInvalidInput);
  EXPECT_EQ(s.message(), "plan.yaml: phases[0].workers: expected 1 to 100000");
  EXPECT_TRUE(Status::Ok().WithContext("x").ok());
}

TEST(StatusTest, FromErrnoSaysWhoseTheFailureIs) {
  EXPECT_EQ(Status::FromErrno("a", ENOENT).kind(), StatusKind::kNotFound);
  EXPECT_EQ(Status::FromErrno("a", ENOENT).message(), "a: No such file or directory");
  EXPECT_EQ(Status::FromErrno("a", EACCES).kind(), StatusKind::kPermission);
  EXPECT_EQ(Status::FromErrno("a", EEXIST).kind(), StatusKind::kAlreadyExists);
  EXPECT_EQ(Status::FromErrno("a", ENOSPC).kind(), StatusKind::kFailed);
  EXPECT_EQ(Status::FromErrno("a", EIO).kind(), StatusKind::kFailed);
}

}  // namespace
}  // namespace stampede
