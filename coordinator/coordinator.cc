#include "coordinator/coordinator.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/clock.h"
#include "common/log.h"
#include "common/strings.h"
#include "common/version.h"
#include "coordinator/agent_link.h"
#include "coordinator/live_runs.h"
#include "coordinator/result_files.h"
#include "coordinator/session_limits.h"
#include "metrics/pusher.h"
#include "plan/plan_validator.h"
#include "plan/plan_writer.h"
#include "proto/grpc_status.h"
#include "proto/stampede.grpc.pb.h"
#include "record/record_codec.h"
#include "runs/run_record.h"
#include "runs/run_store.h"
#include "web/http_server.h"

namespace stampede::coordinator {
namespace {

using AgentStream = grpc::ServerReaderWriter<v1::CoordinatorMessage, v1::AgentMessage>;

// An agent's gRPC stream as its link (coordinator/agent_link.h).
class GrpcAgentLink final : public AgentLink {
 public:
  GrpcAgentLink(AgentStream* stream, grpc::ServerContext* context) : stream_(stream), context_(context) {}
  bool Read(v1::AgentMessage* message) override { return stream_->Read(message); }
  bool Write(const v1::CoordinatorMessage& message) override { return stream_->Write(message); }
  void Cancel() override { context_->TryCancel(); }

 private:
  AgentStream* const stream_;
  grpc::ServerContext* const context_;
};

// gRPC reports a failed bind without the reason; binding a probe socket
// first gives the user "Address already in use" and the like.
Status ProbeListen(const std::string& address) {
  std::string host;
  int port = 0;
  if (!SplitHostPort(address, &host, &port) && address.substr(address.rfind(':') + 1) != "0") {
    return Status::Error("expected HOST:PORT, found '" + address + "'");
  }
  if (port == 0) return Status::Ok();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (rc != 0) return Status::Error(gai_strerror(rc));
  Status result;
  int fd = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) != 0) {
    result = Status::Error(std::strerror(errno));
  }
  if (fd >= 0) close(fd);
  freeaddrinfo(res);
  return result;
}

}  // namespace

class Coordinator::Service final : public v1::Coordinator::Service {
 public:
  explicit Service(Coordinator* owner) : owner_(owner) {}

  grpc::Status Session(grpc::ServerContext* context, AgentStream* stream) override {
    v1::AgentMessage first;
    if (!stream->Read(&first)) return grpc::Status::OK;
    if (!first.has_hello() || first.hello().name().empty()) {
      return ToGrpc(Status::Invalid("first message must be a hello with a name"));
    }
    if (std::string why = AgentNameProblem(first.hello().name()); !why.empty()) {
      SLOG(kWarn) << "refused an agent from " << context->peer() << ": " << why;
      return ToGrpc(Status::Invalid("refused: " + why));
    }
    if (std::string why =
            AgentIdentityProblem(owner_->options_.access, CertificateNames(*context), first.hello().name());
        !why.empty()) {
      SLOG(kWarn) << "refused an agent from " << context->peer() << ": " << why;
      return ToGrpc(Status::Denied("refused: " + why));
    }
    if (owner_->registry_.size() >= kMaxAgents) {
      SLOG(kWarn) << "refused agent " << first.hello().name() << ": " << kMaxAgents << " agents are connected";
      return ToGrpc(Status::Exhausted("the coordinator has " + std::to_string(kMaxAgents) + " agents, its limit"));
    }
    GrpcAgentLink link(stream, context);
    return ToGrpc(ServeAgent(&owner_->registry_, &link, first.hello(), context->peer()));
  }

  grpc::Status SubmitRun(grpc::ServerContext* context, const v1::SubmitRunRequest* request,
                         grpc::ServerWriter<v1::RunUpdate>* writer) override {
    if (grpc::Status denied = MaySubmit(*context, "a run"); !denied.ok()) return denied;
    // The plan as it will run is validated again here: a coordinator trusts
    // no client.
    if (auto problems = plan::ValidatePlan(request->plan()); !problems.empty()) {
      return ToGrpc(Status::Invalid("submitted plan: " + plan::FormatProblems(problems)));
    }
    auto feed = owner_->SubmitPlan(request->plan(), request->plan_yaml());
    if (!feed) {
      v1::RunUpdate u;
      u.mutable_result()->set_error("the coordinator is already running a plan");
      writer->Write(u);
      return grpc::Status::OK;
    }
    FollowFeed(context, writer, feed, true, true);
    return grpc::Status::OK;
  }

  grpc::Status Follow(grpc::ServerContext* context, const v1::FollowRequest* request,
                      grpc::ServerWriter<v1::RunUpdate>* writer) override {
    if (request->abort_on_cancel()) {
      if (grpc::Status denied = MaySubmit(*context, "a follower that may abort"); !denied.ok()) return denied;
    }
    auto feed = owner_->Feed(request->run_id());
    if (!feed) {
      return ToGrpc(
          Status::NotFound(request->run_id().empty() ? "no run here" : "run " + request->run_id() + " is not here"));
    }
    FollowFeed(context, writer, feed, request->abort_on_cancel(), false);
    return grpc::Status::OK;
  }

  // Reading, like Follow without abort: the files hold no secrets.
  grpc::Status FetchResults(grpc::ServerContext* context, const v1::FetchResultsRequest* request,
                            grpc::ServerWriter<v1::ResultChunk>* writer) override {
    auto feed = owner_->Feed(request->run_id());
    if (feed && !feed->ended()) {
      return ToGrpc(Status::Invalid("run " + request->run_id() + " is still going"));
    }
    Status s = SendResultFiles(owner_->options_.results_root, request->run_id(),
                               [&](const v1::ResultChunk& c) { return !context->IsCancelled() && writer->Write(c); });
    return ToGrpc(s);
  }

 private:
  grpc::Status MaySubmit(const grpc::ServerContext& context, const char* what) const {
    std::string why = SubmitProblem(owner_->options_.access, CertificateNames(context), PresentedToken(context));
    if (why.empty()) return grpc::Status::OK;
    SLOG(kWarn) << "refused " << what << " from " << context.peer() << ": " << why;
    return ToGrpc(Status::Denied("refused: " + why));
  }

  // Until the run's result is written. A caller who may abort (the
  // submitter) and cancels its call aborts the run, as Ctrl-C does.
  static void FollowFeed(grpc::ServerContext* context, grpc::ServerWriter<v1::RunUpdate>* writer,
                         const std::shared_ptr<RunFeed>& feed, bool abort_on_cancel, bool from_start) {
    feed->Follow([&](const v1::RunUpdate& u) { return writer->Write(u); },
                 [&] {
                   if (!context->IsCancelled()) return false;
                   if (abort_on_cancel) feed->Abort();
                   return true;
                 },
                 from_start);
  }

  Coordinator* owner_;
};

struct Coordinator::Live {
  explicit Live(AgentRegistry* registry)
      : runs([registry] {
          std::vector<ConnectedAgent> agents;
          for (const auto& a : registry->Connected()) {
            const v1::Hello& h = a->hello();
            agents.push_back({h.name(),
                              {h.labels().begin(), h.labels().end()},
                              {h.nodes().begin(), h.nodes().end()},
                              h.capacity(),
                              h.version()});
          }
          return agents;
        }) {}
  LiveRuns runs;
  web::HttpServer server;
};

Coordinator::Coordinator(CoordinatorOptions options)
    : options_(std::move(options)), live_(std::make_unique<Live>(&registry_)) {
  if (!options_.credentials) options_.credentials = grpc::InsecureServerCredentials();
  live_->runs.SetHistory(options_.history, options_.results_root);
}

int Coordinator::http_port() const { return live_->server.port(); }

Coordinator::~Coordinator() { Shutdown(); }

std::string Coordinator::address() const {
  std::string host = options_.listen.substr(0, options_.listen.rfind(':'));
  return host + ":" + std::to_string(port_);
}

Status Coordinator::Start() {
  Status probe = ProbeListen(options_.listen);
  if (!probe.ok()) return probe.WithContext("cannot listen on " + options_.listen);
  // A run this coordinator's predecessor did not finish: its agents are
  // welcomed back in it from the first moment the server answers.
  std::shared_ptr<RunController> resumed;
  std::shared_ptr<RunFeed> resumed_feed;
  if (options_.resume) {
    std::string run_id;
    const std::string dir = FindUnfinishedRun(&run_id);
    if (!dir.empty()) {
      RunOptions o;
      o.results_root = options_.results_root;
      o.resume_dir = dir;
      o.resumable = true;
      resumed_feed = std::make_shared<RunFeed>(&shutdown_observer_);
      o.observer = resumed_feed.get();
      o.on_record = [this](const record::Record& r) { live_->runs.OnRecord(r); };
      resumed = std::make_shared<RunController>(std::move(o), &registry_);
      Status s = resumed->LoadForResume();
      if (!s.ok()) {
        SLOG(kWarn) << "cannot take back run " << run_id << ": " << s.message();
        resumed.reset();
      } else {
        SLOG(kInfo) << "taking back run " << run_id << " from " << dir;
        resumed_feed->OnStarted(run_id, dir);
        TryBegin(resumed_feed);
        registry_.SetListener(resumed);
      }
    }
  }
  service_ = std::make_unique<Service>(this);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options_.listen, options_.credentials, &port_);
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.SetMaxSendMessageSize(kMaxMessageBytes);
  builder.RegisterService(service_.get());
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 5000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  server_ = builder.BuildAndStart();
  if (!server_ || port_ == 0) {
    server_.reset();
    return Status::Error("cannot listen on " + options_.listen);
  }
  if (resumed) {
    MutexLock lock(run_mu_);
    run_thread_ = std::thread([this, resumed, resumed_feed] {
      std::ifstream in(resumed_feed->results_dir() + "/plan.yaml");
      std::stringstream yaml;
      yaml << in.rdbuf();
      live_->runs.RunStarting(yaml.str());
      v1::RunResult result = resumed->Run();
      registry_.SetListener(nullptr);
      resumed_feed->End(result);
      EndRun();
    });
  }
  monitor_ = std::thread([this] {
    while (!shutting_down_.load()) {
      registry_.CancelSilent(MonoNowNs());
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  });
  if (!options_.http.empty()) {
    Status s =
        live_->server.Start(options_.http, [this](const std::string& target) { return live_->runs.Handle(target); });
    if (!s.ok()) {
      server_->Shutdown();
      server_.reset();
      return s.WithContext("--http");
    }
  }
  return Status::Ok();
}

std::string Coordinator::FindUnfinishedRun(std::string* run_id) const {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string best;
  fs::file_time_type best_time;
  for (const auto& entry : fs::directory_iterator(options_.results_root, ec)) {
    const std::string journal = entry.path().string() + "/journal.jsonl";
    std::ifstream in(journal);
    std::string first;
    if (!in || !std::getline(in, first)) continue;
    const std::optional<record::Record> record = record::DecodeText(first);
    const auto* run = record ? std::get_if<record::RunStart>(&*record) : nullptr;
    if (!run || !run->resumable) continue;
    // Finished runs end with an end line (or a torn line after one).
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    const std::streamoff tail = std::min<std::streamoff>(size, 1 << 16);
    std::string end(size_t(tail), '\0');
    in.seekg(size - tail);
    in.read(end.data(), tail);
    if (end.find("\"type\":\"end\"") != std::string::npos) continue;
    const auto t = fs::last_write_time(journal, ec);
    if (best.empty() || t > best_time) {
      best = entry.path().string();
      best_time = t;
      *run_id = run->run_id;
    }
  }
  return best;
}

bool Coordinator::TryBegin(const std::shared_ptr<RunFeed>& feed) {
  MutexLock lock(run_mu_);
  if (busy_ || shutting_down_.load()) return false;
  busy_ = true;
  feed_ = feed;
  return true;
}

void Coordinator::EndRun() {
  {
    MutexLock lock(run_mu_);
    busy_ = false;
  }
  run_cv_.notify_all();
}

std::shared_ptr<RunFeed> Coordinator::Feed(const std::string& run_id) {
  MutexLock lock(run_mu_);
  if (!feed_ || (!run_id.empty() && feed_->run_id() != run_id)) return nullptr;
  return feed_;
}

v1::RunResult Coordinator::RunPlan(const v1::Plan& plan, const std::string& plan_yaml, const std::string& results_dir,
                                   RunObserver* observer) {
  auto feed = std::make_shared<RunFeed>(observer);
  if (!TryBegin(feed)) {
    v1::RunResult r;
    r.set_error("the coordinator is already running a plan");
    return r;
  }
  RunOptions o;
  o.plan = plan;
  o.plan_yaml = plan_yaml.empty() ? plan::PlanToYaml(plan) : plan_yaml;
  o.results_root = options_.results_root;
  o.results_dir = results_dir;
  v1::RunResult result = RunWithFeed(std::move(o), feed);
  EndRun();
  return result;
}

std::shared_ptr<RunFeed> Coordinator::SubmitPlan(const v1::Plan& plan, const std::string& plan_yaml) {
  auto feed = std::make_shared<RunFeed>(&shutdown_observer_);
  if (!TryBegin(feed)) return nullptr;
  RunOptions o;
  o.plan = plan;
  o.plan_yaml = plan_yaml.empty() ? plan::PlanToYaml(plan) : plan_yaml;
  o.results_root = options_.results_root;
  MutexLock lock(run_mu_);
  if (run_thread_.joinable()) run_thread_.join();  // the previous run's, over
  run_thread_ = std::thread([this, o = std::move(o), feed]() mutable {
    RunWithFeed(std::move(o), feed);
    EndRun();
  });
  return feed;
}

v1::RunResult Coordinator::RunWithFeed(RunOptions o, const std::shared_ptr<RunFeed>& feed) {
  o.observer = feed.get();
  o.resumable = options_.resume;
  o.history = options_.history;
  live_->runs.RunStarting(o.plan_yaml);
  o.on_record = [this](const record::Record& r) { live_->runs.OnRecord(r); };
  std::unique_ptr<metrics::Pusher> pusher;
  if (!options_.pushgateway.empty()) {
    auto p = metrics::Pusher::Start(options_.pushgateway, "stampede", live_->runs.metrics().registry());
    if (!p.ok()) {
      v1::RunResult r;
      r.set_error(p.status().message());
      feed->End(r);
      return r;
    }
    pusher = std::move(*p);
  }
  auto controller = std::make_shared<RunController>(std::move(o), &registry_);
  registry_.SetListener(controller);
  v1::RunResult result = controller->Run();
  registry_.SetListener(nullptr);
  pusher.reset();  // a last push with the final counts
  RecordInHistory(result.results_dir());
  feed->End(result);
  return result;
}

// A daemon's finished run into its run history: its Runs page lists it,
// also after a restart. A history that cannot be written costs a log line.
void Coordinator::RecordInHistory(const std::string& dir) {
  if (!options_.record_runs || options_.history.empty() || dir.empty()) return;
  std::error_code ec;
  if (!std::filesystem::exists(dir + "/summary.json", ec)) return;
  auto r = runs::ReadRunRecord(dir);
  auto store = r.ok() ? runs::RunStore::Open(options_.history) : StatusOr<std::unique_ptr<runs::RunStore>>(r.status());
  if (r.ok()) r->version = options_.version;
  auto added = store.ok() ? (*store)->Record(*r) : StatusOr<bool>(store.status());
  if (!added.ok()) {
    SLOG(kWarn) << "run not recorded in the run history: " << added.status().message();
    return;
  }
  SLOG(kInfo) << "run " << r->run_id << " recorded in the run history (" << options_.history << ")";
}

void Coordinator::Shutdown() {
  if (shutting_down_.exchange(true)) return;
  if (monitor_.joinable()) monitor_.join();
  live_->server.Stop();
  {
    // Wait for a run in progress to abort and write its results (the agents
    // are still connected: they undo its faults).
    MutexLock lock(run_mu_);
    while (busy_) run_cv_.wait(lock.native());
  }
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  std::thread t;
  {
    MutexLock lock(run_mu_);
    t = std::move(run_thread_);
  }
  if (t.joinable()) t.join();
}

}  // namespace stampede::coordinator
