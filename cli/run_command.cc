// `stampede run PLAN`: the embedded default (in-process coordinator and
// local agents over real gRPC on loopback), or submit to --coordinator.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>
#include <tuple>

#include "agent/agent.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/local_state.h"
#include "cli/preflight.h"
#include "cli/signals.h"
#include "cli/tls_options.h"
#include "common/clock.h"
#include "common/duration.h"
#include "common/log.h"
#include "common/strings.h"
#include "common/version.h"
#include "coordinator/coordinator.h"
#include "coordinator/result_files.h"
#include "plan/plan_loader.h"
#include "plan/plan_writer.h"
#include "proto/grpc_status.h"
#include "proto/stampede.grpc.pb.h"
#include "report/text_format.h"
#include "runs/run_store.h"
#include "runs/trends.h"

namespace stampede::cli {
namespace po = boost::program_options;
namespace {

// How far the phase is: "(12,000 of 30,000 ops, 14 s left)" or "(4.0 of
// 10.0 s)"; "" when not known.
std::string ProgressDetail(const v1::Progress& p) {
  if (p.phase_t() <= 0) return "";
  char buf[128];
  if (p.progress_total() > 0) {
    std::string left = p.left_s() >= 0 ? ", " + report::Secs(p.left_s()) + " left" : "";
    if (p.progress() >= 1) left = "";
    const std::string unit = p.progress_unit().empty() ? "ops" : p.progress_unit();
    return "(" + Thousands(p.progress_done()) + " of " + Thousands(p.progress_total()) + " " + unit + left + ")";
  }
  std::snprintf(buf, sizeof(buf), "(%.1f of %.1f s)", p.phase_t(), p.phase_t() + std::max(0.0, p.left_s()));
  return buf;
}

// Workers that cannot connect do no operation, so errors stay at 0 while
// the database refuses them: the line says so when it happens.
void PrintProgress(const v1::Progress& p) {
  char percent[16] = "     ";
  if (p.phase_t() > 0) std::snprintf(percent, sizeof(percent), "%4.0f%%", 100 * p.progress());
  std::printf("[%7.1fs] %-12s %s  ops/s %9s  p99 %10s  errors %6llu  missed %5llu  agents %u  workers %u",
              p.elapsed_s(), p.phase().c_str(), percent, Thousands(uint64_t(p.ops_per_s() + 0.5)).c_str(),
              report::HumanUs(p.p99_us()).c_str(), static_cast<unsigned long long>(p.errors()),
              static_cast<unsigned long long>(p.missed()), p.agents(), p.active_workers());
  if (const std::string detail = ProgressDetail(p); !detail.empty()) std::printf("  %s", detail.c_str());
  if (p.connect_failures() > 0) {
    std::printf("  connect failures %llu", static_cast<unsigned long long>(p.connect_failures()));
  }
  // A join's or leave's data on the move: "join redis-new 38% (1,560 of
  // 4,096 slots moved, 12 s left)".
  if (!p.move().empty()) {
    const std::string left =
        p.move_ratio() < 1 && p.move_left_s() >= 0 ? ", " + report::Secs(p.move_left_s()) + " left" : "";
    std::printf("  %s %.0f%% (%s of %s %s moved%s)", p.move().c_str(), 100 * p.move_ratio(),
                Thousands(uint64_t(p.move_done() + 0.5)).c_str(), Thousands(uint64_t(p.move_total() + 0.5)).c_str(),
                p.move_unit().c_str(), left.c_str());
  }
  // The numbers of this second measure the agent, not the database.
  const int saturated = p.saturated_agents_size();
  for (int i = 0; i < std::min(saturated, 3); ++i) {
    std::printf("%s%s", i == 0 ? "  CLIENT SATURATED: " : ", ", p.saturated_agents(i).c_str());
  }
  if (saturated > 3) std::printf(" and %d more", saturated - 3);
  std::printf("\n");
  std::fflush(stdout);
}

// Records the finished run in the run history and says how it compares
// with the plan's runs before it (docs/history.md). A history that cannot
// be written costs the line, not the run.
void RecordRun(const std::string& dir, const std::string& history) {
  // A run that ended before it started has nothing to record.
  if (history.empty() || dir.empty() || !std::filesystem::exists(dir + "/summary.json")) return;
  auto r = runs::ReadRunRecord(dir);
  if (!r.ok()) {
    std::cerr << "stampede: not recorded in the run history: " << r.status().message() << "\n";
    return;
  }
  r->version = kVersion;
  auto store = runs::RunStore::Open(history);
  auto added = store.ok() ? (*store)->Record(*r) : StatusOr<bool>(store.status());
  // The runs the line judges by, not the whole history.
  auto list = added.ok() ? (*store)->Runs(r->plan, runs::kLevelWindow + 1)
                         : StatusOr<std::vector<runs::RunRecord>>(added.status());
  auto plans = list.ok() ? (*store)->Plans() : StatusOr<std::vector<runs::PlanRuns>>(list.status());
  if (!plans.ok()) {
    std::cerr << "stampede: not recorded in the run history: " << plans.status().message() << "\n";
    return;
  }
  uint64_t all = list->size();
  for (const runs::PlanRuns& p : *plans) all = p.plan == r->plan ? p.runs : all;
  std::cout << "history: " << runs::LatestInWords(*list, all - 1) << " (" << history << ")\n";
}

// copied: where the results were copied to on this host (run --coordinator
// --results DIR), or empty. history: the run history's file, or empty.
int Conclude(const v1::RunResult& result, bool remote, const std::string& copied = "",
             const std::string& history = "") {
  if (!result.report_md().empty()) std::cout << "\n" << result.report_md();
  if (!copied.empty()) {
    std::cout << "\nresults: " << copied << " (copied from " << result.results_dir() << " on the coordinator)\n";
  } else if (!result.results_dir().empty()) {
    std::cout << "\nresults: " << result.results_dir() << (remote ? " (on the coordinator)" : "") << "\n";
  }
  // The result again, last, where a terminal leaves it in view.
  if (!result.headline().empty()) std::cout << "\n" << result.headline();
  RecordRun(!copied.empty() ? copied : remote ? "" : result.results_dir(), history);
  std::cout.flush();
  if (!result.ok()) {
    std::cerr << "stampede: " << result.error() << "\n";
    return result.bad_input() ? kExitBadInput : kExitFailed;
  }
  if (!result.degraded().empty()) std::cerr << "stampede: degraded: " << result.degraded() << "\n";
  if (!result.expectations_failed().empty()) {
    std::cerr << "stampede: expectations not met: " << result.expectations_failed() << "\n";
    return kExitExpectations;
  }
  return result.degraded().empty() ? kExitOk : kExitDegraded;
}

class CliObserver : public coordinator::RunObserver {
 public:
  explicit CliObserver(const SignalWatcher* signals) : signals_(signals) {}
  void OnProgress(const v1::Progress& p) override { PrintProgress(p); }
  void OnLog(const std::string&) override {}  // already on stderr via the log
  bool Cancelled() override { return signals_->signalled(); }

 private:
  const SignalWatcher* signals_;
};

// Reads one SubmitRun or Follow call until it ends; true if the result came.
bool ReadUpdates(grpc::ClientReaderInterface<v1::RunUpdate>* reader, std::string* run_id, v1::RunResult* result) {
  v1::RunUpdate u;
  bool got_result = false;
  while (reader->Read(&u)) {
    if (!u.run_id().empty()) *run_id = u.run_id();
    if (u.has_progress()) PrintProgress(u.progress());
    if (u.has_log()) std::cerr << u.log() << "\n";
    if (u.has_result()) {
      *result = u.result();
      got_result = true;
    }
  }
  return got_result;
}

// Copies a finished run's results from the coordinator into `dir`.
Status FetchResults(v1::Coordinator::Stub* stub, const std::string& token, const std::string& run_id,
                    const std::string& dir) {
  grpc::ClientContext ctx;
  if (!token.empty()) ctx.AddMetadata(coordinator::kTokenMetadata, token);
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::minutes(10));
  v1::FetchResultsRequest req;
  req.set_run_id(run_id);
  auto reader = stub->FetchResults(&ctx, req);
  coordinator::ResultFileWriter writer(dir);
  v1::ResultChunk chunk;
  Status written = Status::Ok();
  while (reader->Read(&chunk)) {
    if (written.ok()) written = writer.Write(chunk);
    if (!written.ok()) ctx.TryCancel();
  }
  grpc::Status st = reader->Finish();
  if (!written.ok()) return written;
  if (!st.ok()) return Status::Error("the coordinator did not send them: " + st.error_message());
  if (Status f = writer.Finish(); !f.ok()) return f;
  if (writer.files() == 0) return Status::Error("the coordinator sent no files");
  return Status::Ok();
}

// The result, with the results copied to `local_dir` first when asked.
int ConcludeRemote(v1::Coordinator::Stub* stub, const std::string& token, const std::string& run_id,
                   const v1::RunResult& result, const std::string& local_dir, const std::string& history) {
  if (local_dir.empty() || run_id.empty()) return Conclude(result, true);
  if (Status s = FetchResults(stub, token, run_id, local_dir); !s.ok()) {
    const int rc = Conclude(result, true);
    std::cerr << "stampede: --results " << local_dir << ": " << s.message() << "; they stay on the coordinator\n";
    return rc == kExitOk ? kExitFailed : rc;
  }
  return Conclude(result, true, local_dir, history);
}

// Submits the plan and follows the run. If the coordinator goes away, the
// run goes on without it (its agents spool) and a restarted coordinator
// takes it back: this follows it again when it is back.
int RunRemote(const std::string& address, const TlsOptions& tls, const std::string& token, const v1::Plan& plan,
              const std::string& yaml, int64_t follow_for_ms, const std::string& local_results,
              const std::string& history) {
  auto creds = tls.ChannelCredentials(address);
  if (!creds.ok()) {
    return Fail(creds.status());
  }
  auto stub = v1::Coordinator::NewStub(grpc::CreateChannel(address, *creds));
  std::mutex mu;
  grpc::ClientContext* current = nullptr;
  std::atomic<bool> interrupted{false};
  SignalWatcher signals([&](int) {
    interrupted = true;
    std::lock_guard<std::mutex> lock(mu);
    if (current) current->TryCancel();
  });
  auto call = [&](auto&& start) {
    grpc::ClientContext ctx;
    if (!token.empty()) ctx.AddMetadata(coordinator::kTokenMetadata, token);
    {
      std::lock_guard<std::mutex> lock(mu);
      current = &ctx;
      if (interrupted) ctx.TryCancel();
    }
    auto reader = start(&ctx);
    v1::RunResult result;
    std::string id;
    bool got = ReadUpdates(reader.get(), &id, &result);
    grpc::Status status = reader->Finish();
    std::lock_guard<std::mutex> lock(mu);
    current = nullptr;
    return std::make_tuple(got, result, status, id);
  };
  v1::SubmitRunRequest req;
  *req.mutable_plan() = plan;
  req.set_plan_yaml(yaml);
  auto [got, result, status, run_id] = call([&](grpc::ClientContext* ctx) { return stub->SubmitRun(ctx, req); });
  if (got) return ConcludeRemote(stub.get(), token, run_id, result, local_results, history);
  const Status answer = FromGrpc(status);
  if (answer.kind() == StatusKind::kInvalidInput || answer.kind() == StatusKind::kPermission) {
    return Fail(answer.WithContext("coordinator " + address));
  }
  if (!interrupted && run_id.empty() && answer.kind() == StatusKind::kUnavailable) {
    std::cerr << "stampede: cannot reach coordinator " << address << ": " << status.error_message()
              << TlsConnectHint(tls) << "\n";
    return kExitFailed;
  }
  if (interrupted || run_id.empty() || follow_for_ms <= 0) {
    std::cerr << "stampede: coordinator " << address << ": "
              << (interrupted   ? "interrupted: the coordinator aborts the run and keeps its results"
                  : status.ok() ? "ended the run without a result"
                                : status.error_message())
              << "\n";
    return kExitFailed;
  }
  std::cerr << "stampede: lost coordinator " << address << " (" << status.error_message() << "); run " << run_id
            << " goes on with its agents: following it again when the coordinator is back\n";
  const int64_t until = MonoNowNs() + follow_for_ms * kNsPerMs;
  v1::FollowRequest follow;
  follow.set_run_id(run_id);
  follow.set_abort_on_cancel(true);
  while (!interrupted && MonoNowNs() < until) {
    for (int i = 0; i < 10 && !interrupted; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto [again, r, st, id] = call([&](grpc::ClientContext* ctx) { return stub->Follow(ctx, follow); });
    (void)id;
    if (again) return ConcludeRemote(stub.get(), token, run_id, r, local_results, history);
    const StatusKind kind = FromGrpc(st).kind();
    if (kind == StatusKind::kPermission) {
      return Fail(Status::Denied("coordinator " + address + " came back but " + st.error_message()));
    }
    if (kind == StatusKind::kNotFound) {
      std::cerr << "stampede: coordinator " << address << " does not know run " << run_id
                << " (any more): its results stay where it wrote them\n";
      return kExitFailed;
    }
  }
  std::cerr << "stampede: " << (interrupted ? "interrupted" : "the coordinator did not come back")
            << " while following run " << run_id << "\n";
  return kExitFailed;
}

}  // namespace

namespace {

struct RunFlags {
  std::string plan_file, coordinator_addr, results_dir, results_root = "results", agent_config;
  bool hdr_log = false;
  std::string listen = "127.0.0.1:0";
  std::string http = "127.0.0.1:0";
  std::string pushgateway;
  std::string follow_for = "10m";
  agent::EngineOptions engine;
  int local_agents = 0;
  bool local_agents_given = false;
  TlsOptions tls;
  std::string token_file = DefaultTokenPath();
  std::string history;  // --history: the run history's file, or off
};

void AddRunFlags(RunFlags* f, po::options_description* desc) {
  desc->add_options()("plan", po::value(&f->plan_file), "plan file")("coordinator", po::value(&f->coordinator_addr),
                                                                     "submit to a running coordinator HOST:PORT")(
      "local-agents", Bounded(&f->local_agents, "local-agents", 0, 64),
      "in-process agents (default: the plan's agents.min)")("listen", po::value(&f->listen)->default_value(f->listen),
                                                            "embedded coordinator's gRPC address")(
      "results", po::value(&f->results_dir),
      "write results to exactly this directory, which must not hold another run (with --coordinator: "
      "copy them there from the coordinator when the run ends)")(
      "results-root", po::value(&f->results_root)->default_value(f->results_root), "results/<run-id>/ parent")(
      "agent-config", po::value(&f->agent_config), "local config of the first local agent: the nodes it may act on")(
      "hdr-log", po::bool_switch(&f->hdr_log),
      "also write latency.hlog, the latencies as an HdrHistogram interval log (the plan's report.hdr_log)")(
      "http", po::value(&f->http)->default_value("127.0.0.1:0"),
      "embedded coordinator: dashboard and /metrics on HOST:PORT (port 0: any free port; off: none)")(
      "pushgateway", po::value(&f->pushgateway), "also push metrics to this Pushgateway (http://HOST:PORT)")(
      "threads", po::value(&f->engine.threads)->default_value(0),
      "local agents: event loops each (0: the cores divided among the local agents, at least one each)")(
      "follow-for", po::value(&f->follow_for)->default_value(f->follow_for),
      "with --coordinator: how long to wait for a lost coordinator to come back and follow the run again")(
      "history", po::value(&f->history),
      "record the run in this run history (an SQLite file; off: not at all); default: history.db beside the "
      "results root")("token-file", po::value(&f->token_file)->default_value(f->token_file),
                      "with --coordinator: the coordinator's submit token, sent if the file exists (none: never; "
                      "a submitter's certificate needs none)");
  f->tls.AddTo(desc);
}

// The run history's file (--history, else history.db beside the results
// root: the parent of --results DIR, or --results-root); "" for off.
std::string HistoryPath(const RunFlags& f) {
  if (f.history == "off") return "";
  if (!f.history.empty()) return f.history;
  if (f.results_dir.empty()) return f.results_root + "/history.db";
  const std::filesystem::path parent = std::filesystem::path(f.results_dir).lexically_normal().parent_path();
  return (parent.empty() ? std::filesystem::path(".") : parent).string() + "/history.db";
}

// --coordinator: the plan goes to a coordinator daemon.
int SubmitToCoordinator(const RunFlags& f, const v1::Plan& plan) {
  auto follow = ParseDurationNs(f.follow_for);
  if (!follow.ok()) return Fail(follow.status().WithContext("--follow-for"));
  auto token = f.token_file == "none" ? StatusOr<std::string>(std::string()) : ReadToken(f.token_file);
  if (!token.ok()) {
    return Fail(token.status());
  }
  return RunRemote(f.coordinator_addr, f.tls, *token, plan, plan::PlanToYaml(plan), *follow / kNsPerMs, f.results_dir,
                   HistoryPath(f));
}

// A coordinator and f.local_agents agents in this process; the first
// has first_config (--agent-config).
int RunEmbedded(const RunFlags& f, v1::Plan plan, const agent::AgentConfig& first_config) {
  int local_agents = f.local_agents;
  if (f.local_agents_given && local_agents < 0) {
    std::cerr << "stampede: --local-agents must be 0 or more\n";
    return kExitBadInput;
  }
  if (!f.local_agents_given) local_agents = std::max<int>(1, plan.agents().min());
  // Every local agent takes part: the run waits for all of them.
  if (uint32_t(local_agents) > plan.agents().min()) plan.mutable_agents()->set_min(static_cast<uint32_t>(local_agents));
  coordinator::CoordinatorOptions co;
  co.listen = f.listen;
  co.results_root = f.results_root;
  co.http = f.http == "off" ? "" : f.http;
  co.pushgateway = f.pushgateway;
  co.history = HistoryPath(f);
  auto server_creds = f.tls.ServerCredentials(f.listen);
  if (!server_creds.ok()) return Fail(server_creds.status());
  co.credentials = *server_creds;
  coordinator::Coordinator coord(co);
  Status s = coord.Start();
  if (!s.ok()) {
    return Fail(s);
  }
  if (coord.http_port()) {
    std::fprintf(stderr, "dashboard: http://%s:%d/\n", f.http.substr(0, f.http.rfind(':')).c_str(), coord.http_port());
  }
  auto channel_creds = f.tls.ChannelCredentials(coord.address());
  if (!channel_creds.ok()) {
    return Fail(channel_creds.status());
  }
  std::vector<std::unique_ptr<agent::Agent>> agents;
  std::vector<std::thread> threads;
  for (int i = 0; i < local_agents; ++i) {
    agent::AgentOptions ao;
    ao.coordinator = "127.0.0.1:" + std::to_string(coord.port());
    ao.name = "local-" + std::to_string(i + 1);
    ao.credentials = *channel_creds;
    if (i == 0) ao.config = first_config;
    ao.engine = f.engine;
    // One event loop per core for the process, not per agent: N agents
    // with a loop per core each would put N loops on every core.
    if (ao.engine.threads == 0) {
      ao.engine.threads = std::max(1, int(std::thread::hardware_concurrency()) / local_agents);
    }
    agents.push_back(std::make_unique<agent::Agent>(ao));
    // Before the run: an agent that cannot serve (a proxy's port in use)
    // ends it with its reason, not with a wait for an agent that never comes.
    if (Status started = agents.back()->Start(); !started.ok()) {
      for (auto& a : agents) a->Shutdown();
      for (auto& t : threads) t.join();
      coord.Shutdown();
      return Fail(started);
    }
    threads.emplace_back([a = agents.back().get()] { (void)a->Run(); });
  }
  SignalWatcher signals([](int) { SLOG(kWarn) << "interrupted: stopping the run"; });
  CliObserver observer(&signals);
  v1::RunResult result = coord.RunPlan(plan, plan::PlanToYaml(plan), f.results_dir, &observer);
  for (auto& a : agents) a->Shutdown();
  for (auto& t : threads) t.join();
  coord.Shutdown();
  return Conclude(result, false, "", HistoryPath(f));
}

}  // namespace

int RunCommand(const Args& args) {
  RunFlags f;
  po::options_description desc("run options");
  AddRunFlags(&f, &desc);
  po::positional_options_description pos;
  pos.add("plan", 1);
  po::variables_map vm;
  const std::string usage = "usage: stampede run PLAN.yaml [--coordinator HOST:PORT] [--local-agents N]";
  if (auto code = ParseFlags(usage, desc, pos, args, &vm)) return *code;
  if (f.plan_file.empty()) {
    std::cerr << usage << "\n";
    return kExitBadInput;
  }
  f.local_agents_given = vm.count("local-agents") > 0 && !vm["local-agents"].defaulted();
  // In this process, the first local agent owns every fault's node: its
  // config must declare them all, checked before anything runs.
  std::vector<NamedAgentConfig> local;
  plan::PlanCheck owners;
  if (f.coordinator_addr.empty()) {
    if (!f.agent_config.empty()) {
      auto c = agent::AgentConfig::Load(f.agent_config);
      if (!c.ok()) return Fail(c.status());
      local.push_back({f.agent_config, std::move(*c)});
    }
    owners = [&local](const v1::Plan& plan) { return FaultOwnerProblems(plan, local); };
  }
  auto loaded = plan::LoadPlanFile(f.plan_file, owners);
  if (!loaded.ok()) {
    for (const std::string& e : loaded.errors) std::cerr << e << "\n";
    return kExitBadInput;
  }
  if (Status e = agent::CheckEngine(f.engine); !e.ok()) {
    return Fail(e);
  }
  // It travels with the plan, so a coordinator daemon writes it too.
  if (f.hdr_log) loaded.plan.mutable_report()->set_hdr_log(true);
  if (!f.coordinator_addr.empty()) return SubmitToCoordinator(f, loaded.plan);
  return RunEmbedded(f, loaded.plan, local.empty() ? agent::AgentConfig() : local.front().config);
}

}  // namespace stampede::cli
