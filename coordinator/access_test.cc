#include "coordinator/access.h"

#include <gtest/gtest.h>

namespace stampede::coordinator {
namespace {

TEST(Access, SubmitterByCertificateName) {
  AccessPolicy p;
  p.submitters = {"ci-bot", "alice"};
  EXPECT_EQ(SubmitProblem(p, {"alice"}, ""), "");
  EXPECT_EQ(SubmitProblem(p, {"host-1", "ci-bot"}, ""), "");  // a SAN counts too
  std::string why = SubmitProblem(p, {"agent-7"}, "");
  EXPECT_NE(why.find("agent-7"), std::string::npos) << why;
  EXPECT_NE(why.find("ci-bot, alice"), std::string::npos) << why;
}

TEST(Access, TokenWithoutCertificate) {
  AccessPolicy p;
  p.token = "0123456789abcdef";
  EXPECT_EQ(SubmitProblem(p, {}, "0123456789abcdef"), "");
  EXPECT_NE(SubmitProblem(p, {}, ""), "");
  std::string why = SubmitProblem(p, {}, "0123456789abcdeX");
  EXPECT_NE(why, "");
  EXPECT_EQ(why.find("0123456789abcde"), std::string::npos) << "never echo a token: " << why;
  // No token configured: none is accepted, not even an empty one.
  p.token.clear();
  EXPECT_NE(SubmitProblem(p, {}, ""), "");
}

TEST(Access, AgentNameMustBeOneOfTheCertificates) {
  AccessPolicy p;
  EXPECT_EQ(AgentIdentityProblem(p, {}, "anything"), "");  // plaintext: no identity
  EXPECT_EQ(AgentIdentityProblem(p, {"db1-host"}, "db1-host"), "");
  EXPECT_EQ(AgentIdentityProblem(p, {"load-1", "load-1.example.net"}, "load-1.example.net"), "");
  std::string why = AgentIdentityProblem(p, {"db1-host"}, "db2-host");
  EXPECT_NE(why.find("'db2-host'"), std::string::npos) << why;
  EXPECT_NE(why.find("db1-host"), std::string::npos) << why;
  EXPECT_NE(AgentIdentityProblem(p, {"submitter"}, "submitter"), "");
}

TEST(Access, SecretEquals) {
  EXPECT_TRUE(SecretEquals("abc", "abc"));
  EXPECT_FALSE(SecretEquals("abc", "abd"));
  EXPECT_FALSE(SecretEquals("abc", "abcd"));
}

}  // namespace
}  // namespace stampede::coordinator
