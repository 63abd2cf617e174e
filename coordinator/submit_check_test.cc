// A client may send any protobuf plan: SubmitRun refuses one that breaks
// the plan's rules before anything runs, naming each problem, even where
// the YAML a CLI reads could never say it.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "coordinator/access.h"
#include "coordinator/coordinator.h"
#include "plan/plan_loader.h"
#include "proto/stampede.grpc.pb.h"

namespace stampede::coordinator {
namespace {

constexpr char kToken[] = "0123456789abcdef";

constexpr char kPlan[] = R"(name: submitted
target: {driver: redis, endpoints: ["127.0.0.1:1"]}
phases: [{name: load, workload: kv, workers: 2, ops: 100}]
)";

grpc::Status Submit(int port, const v1::Plan& plan, std::string* error) {
  auto stub = v1::Coordinator::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.AddMetadata(kTokenMetadata, kToken);
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::SubmitRunRequest req;
  *req.mutable_plan() = plan;
  auto reader = stub->SubmitRun(&ctx, req);
  v1::RunUpdate update;
  while (reader->Read(&update)) {
    if (update.has_result()) *error = update.result().error();
  }
  return reader->Finish();
}

TEST(SubmitCheck, RefusesWhatTheYamlCouldNotSay) {
  const std::string root = testing::TempDir() + "/submit-check";
  std::filesystem::remove_all(root);
  CoordinatorOptions options;
  options.listen = "127.0.0.1:0";
  options.results_root = root;
  options.access.token = kToken;
  Coordinator coord(options);
  ASSERT_TRUE(coord.Start().ok());

  auto loaded = plan::LoadPlanText(kPlan, "p.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.errors[0];
  v1::Plan bad = loaded.plan;
  bad.mutable_phases(0)->set_workers(200000);
  (*bad.mutable_phases(0)->mutable_params())["read"] = "lots";
  bad.mutable_phases(0)->set_group("load");  // the coordinator's own expansion field
  v1::Fault* f = bad.add_faults();
  f->set_phase("load");
  f->set_action("sh -c reboot");
  f->set_node("db1");
  std::string error;
  grpc::Status s = Submit(coord.port(), bad, &error);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  const std::string& m = s.error_message();
  EXPECT_NE(m.find("phases[0].workers: expected a positive integer up to 100000, found 200000"), std::string::npos)
      << m;
  EXPECT_NE(m.find("phases[0].params.read: expected a number, found 'lots'"), std::string::npos) << m;
  EXPECT_NE(m.find("phases[0]: group, step and group_workers are set by the coordinator"), std::string::npos) << m;
  EXPECT_NE(m.find("faults[0].action: expected one of kill"), std::string::npos) << m;
  // Nothing ran: no run directory was made.
  EXPECT_TRUE(!std::filesystem::exists(root) || std::filesystem::is_empty(root));
  coord.Shutdown();
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace stampede::coordinator
