#include "coordinator/coordinator.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "common/clock.h"
#include "common/log.h"
#include "common/strings.h"
#include "coordinator/live_runs.h"
#include "metrics/pusher.h"
#include "web/http_server.h"
#include "plan/plan_loader.h"
#include "proto/stampede.grpc.pb.h"

namespace stampede::coordinator {
namespace {

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
    (void)context;
    v1::AgentMessage first;
    if (!stream->Read(&first)) return grpc::Status::OK;
    if (!first.has_hello() || first.hello().name().empty()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "first message must be a hello with a name");
    }
    auto session = std::make_shared<AgentSession>(first.hello(), stream);
    if (!owner_->registry_.Add(session)) {
      SLOG(kWarn) << "refused a second agent named " << session->name();
      return grpc::Status(grpc::StatusCode::ALREADY_EXISTS,
                          "an agent named " + session->name() + " is already connected");
    }
    SLOG(kInfo) << "agent " << session->name() << " connected (" << context->peer() << ")";
    v1::CoordinatorMessage welcome;
    welcome.mutable_welcome()->set_coordinator_version("0.1.0");
    welcome.mutable_welcome()->set_coord_time_ns(MonoNowNs());
    session->Send(welcome);
    v1::AgentMessage m;
    while (stream->Read(&m)) {
      switch (m.msg_case()) {
        case v1::AgentMessage::kHeartbeat: {
          v1::CoordinatorMessage ack;
          ack.mutable_heartbeat_ack()->set_echo_agent_ns(m.heartbeat().agent_send_ns());
          ack.mutable_heartbeat_ack()->set_coord_time_ns(MonoNowNs());
          session->Send(ack);
          break;
        }
        case v1::AgentMessage::kSnapshot:
          if (auto l = owner_->registry_.listener()) l->OnSnapshot(session->name(), m.snapshot());
          break;
        case v1::AgentMessage::kEvent:
          if (auto l = owner_->registry_.listener()) l->OnEvent(session->name(), m.event());
          break;
        default:
          break;
      }
    }
    session->Close();
    owner_->registry_.Remove(session);
    SLOG(kInfo) << "agent " << session->name() << " disconnected";
    if (auto l = owner_->registry_.listener()) l->OnAgentLost(session->name());
    return grpc::Status::OK;
  }

  grpc::Status SubmitRun(grpc::ServerContext* context, const v1::SubmitRunRequest* request,
                         grpc::ServerWriter<v1::RunUpdate>* writer) override {
    // The plan is validated again here: a coordinator trusts no client.
    auto check = plan::LoadPlanText(plan::PlanToYaml(request->plan()), "submitted plan");
    if (!check.ok()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, Join(check.errors, "\n"));
    }
    class StreamObserver : public RunObserver {
     public:
      StreamObserver(grpc::ServerContext* c, grpc::ServerWriter<v1::RunUpdate>* w, Coordinator* o)
          : context_(c), writer_(w), owner_(o) {}
      void OnProgress(const v1::Progress& p) override {
        v1::RunUpdate u;
        *u.mutable_progress() = p;
        Write(u);
      }
      void OnLog(const std::string& line) override {
        v1::RunUpdate u;
        u.set_log(line);
        Write(u);
      }
      bool Cancelled() override { return context_->IsCancelled() || owner_->shutting_down(); }
      void Write(const v1::RunUpdate& u) {
        std::lock_guard<std::mutex> lock(mu_);
        writer_->Write(u);
      }

     private:
      grpc::ServerContext* context_;
      grpc::ServerWriter<v1::RunUpdate>* writer_;
      Coordinator* owner_;
      std::mutex mu_;
    } observer(context, writer, owner_);
    v1::RunResult result = owner_->RunPlan(request->plan(), request->plan_yaml(), "", &observer);
    v1::RunUpdate last;
    *last.mutable_result() = result;
    observer.Write(last);
    return grpc::Status::OK;
  }

 private:
  Coordinator* owner_;
};

struct Coordinator::Live {
  explicit Live(AgentRegistry* registry)
      : runs([registry] {
          std::vector<std::string> names;
          for (const auto& a : registry->Connected()) names.push_back(a->name());
          return names;
        }) {}
  LiveRuns runs;
  web::HttpServer server;
};

Coordinator::Coordinator(CoordinatorOptions options)
    : options_(std::move(options)), live_(std::make_unique<Live>(&registry_)) {
  if (!options_.credentials) options_.credentials = grpc::InsecureServerCredentials();
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
  service_ = std::make_unique<Service>(this);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options_.listen, options_.credentials, &port_);
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
  if (!options_.http.empty()) {
    Status s = live_->server.Start(options_.http, [this](const std::string& target) {
      return live_->runs.Handle(target);
    });
    if (!s.ok()) {
      server_->Shutdown();
      server_.reset();
      return s.WithContext("--http");
    }
  }
  return Status::Ok();
}

v1::RunResult Coordinator::RunPlan(const v1::Plan& plan, const std::string& plan_yaml,
                                   const std::string& results_dir, RunObserver* observer) {
  std::unique_lock<std::mutex> lock(run_mu_, std::try_to_lock);
  if (!lock.owns_lock()) {
    v1::RunResult r;
    r.set_error("the coordinator is already running a plan");
    return r;
  }
  RunOptions o;
  o.plan = plan;
  o.plan_yaml = plan_yaml.empty() ? plan::PlanToYaml(plan) : plan_yaml;
  o.results_root = options_.results_root;
  o.results_dir = results_dir;
  o.observer = observer;
  live_->runs.RunStarting(o.plan_yaml);
  o.on_line = [this](const report::Json& line) { live_->runs.OnLine(line); };
  std::unique_ptr<metrics::Pusher> pusher;
  if (!options_.pushgateway.empty()) {
    auto p = metrics::Pusher::Start(options_.pushgateway, "stampede", live_->runs.metrics().registry());
    if (!p.ok()) {
      v1::RunResult r;
      r.set_error(p.status().message());
      return r;
    }
    pusher = std::move(*p);
  }
  auto controller = std::make_shared<RunController>(std::move(o), &registry_);
  registry_.SetListener(controller);
  v1::RunResult result = controller->Run();
  registry_.SetListener(nullptr);
  pusher.reset();  // a last push with the final counts
  return result;
}

void Coordinator::Shutdown() {
  if (shutting_down_.exchange(true)) return;
  live_->server.Stop();
  if (server_) {
    // Wait for a run in progress to abort and write its results.
    std::lock_guard<std::mutex> lock(run_mu_);
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  }
}

}  // namespace stampede::coordinator
