// A hostile gRPC client for tests/integration/hostile_agent_test.sh: against
// a coordinator with a run in progress it opens a flood of agent sessions,
// claims a running agent's name, sends a message over the size limit, a
// snapshot in another agent's name, one with a corrupt histogram and one
// for a run that does not exist. Prints one line per attempt with what the
// coordinator did; exits 1 if the coordinator accepted something it must
// refuse.
//   hostile_agent --coordinator 127.0.0.1:PORT --victim NAME [--streams N]
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/histogram.h"
#include "common/outcome.h"
#include "proto/histogram_codec.h"
#include "proto/stampede.grpc.pb.h"

namespace stampede {
namespace {

using Stream = grpc::ClientReaderWriter<v1::AgentMessage, v1::CoordinatorMessage>;

struct Session {
  std::unique_ptr<v1::Coordinator::Stub> stub;
  grpc::ClientContext context;
  std::unique_ptr<Stream> stream;

  Session(const std::shared_ptr<grpc::Channel>& channel, const std::string& name)
      : stub(v1::Coordinator::NewStub(channel)) {
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    stream = stub->Session(&context);
    v1::AgentMessage hello;
    hello.mutable_hello()->set_name(name);
    hello.mutable_hello()->set_version("hostile");
    hello.mutable_hello()->set_agent_time_ns(MonoNowNs());
    stream->Write(hello);
  }
  // True if the coordinator answered the hello with a welcome.
  bool Welcomed() {
    v1::CoordinatorMessage m;
    return stream->Read(&m) && m.has_welcome();
  }
  // Writes m, then reads until the coordinator ends the session (or 5 s
  // pass): the status it ended with.
  grpc::Status SendAndFinish(const v1::AgentMessage& m) {
    stream->Write(m);
    std::thread drain([this] {
      v1::CoordinatorMessage ignored;
      while (stream->Read(&ignored)) {
      }
    });
    // The coordinator cancels a session it refuses; a session it keeps is
    // ended here after 5 s, which the caller reads as "kept".
    std::atomic<bool> drained{false};
    std::thread closer([this, &drained] {
      const int64_t until = MonoNowNs() + 5 * kNsPerSec;
      while (!drained.load() && MonoNowNs() < until) SleepUntilMonoNs(MonoNowNs() + kNsPerSec / 20);
      if (!drained.load()) context.TryCancel();
    });
    drain.join();
    drained.store(true);
    closer.join();
    return stream->Finish();
  }
};

v1::AgentMessage SnapshotFrom(const std::string& as_agent, const std::string& run_id) {
  v1::AgentMessage m;
  v1::Snapshot* s = m.mutable_snapshot();
  s->set_run_id(run_id);
  s->set_agent(as_agent);
  s->set_seq(1);
  s->set_start_ns(MonoNowNs());
  s->set_end_ns(MonoNowNs() + kNsPerSec);
  v1::OpStats* op = s->add_ops();
  op->set_op("insert");
  for (int i = 0; i < kNumOutcomes; ++i) op->add_outcomes(i == 0 ? 1000 : 0);
  Histogram h;
  h.RecordN(1000, 1000);
  HistogramToProto(h, op->mutable_latency());
  return m;
}

const char* Code(const grpc::Status& s) {
  switch (s.error_code()) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    default:
      return "OTHER";
  }
}

int Main(const std::string& address, const std::string& victim, int streams) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  // The flood uses a connection per 50 sessions (HTTP/2 stream limits).
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int i = 0; i < (streams + 49) / 50; ++i) {
    grpc::ChannelArguments args;
    args.SetInt("stampede.hostile.channel", i);  // distinct arguments: distinct connections
    channels.push_back(grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args));
  }
  int bad = 0;
  auto report = [&](const char* what, const std::string& result, bool refused) {
    std::printf("%s: %s%s\n", what, result.c_str(), refused ? "" : " (NOT REFUSED)");
    std::fflush(stdout);
    if (!refused) ++bad;
  };

  // 1. A flood of sessions, all open at once, then closed.
  {
    std::vector<std::unique_ptr<Session>> flood;
    int welcomed = 0;
    for (int i = 0; i < streams; ++i) {
      flood.push_back(std::make_unique<Session>(channels[size_t(i / 50)], "flood-" + std::to_string(i)));
    }
    for (auto& s : flood) welcomed += s->Welcomed() ? 1 : 0;
    for (auto& s : flood) {
      s->stream->WritesDone();
      s->context.TryCancel();
    }
    std::printf("flood: %d sessions opened, %d welcomed, all closed\n", streams, welcomed);
  }
  // 2. The name of an agent in the run, while that agent is connected.
  {
    Session s(channel, victim);
    const bool welcomed = s.Welcomed();
    grpc::Status st = welcomed ? grpc::Status::OK : s.stream->Finish();
    report("impersonation", std::string(Code(st)) + " " + st.error_message(), !welcomed);
  }
  // 3. One message over the coordinator's 4 MiB limit.
  {
    Session s(channel, "hostile-big");
    s.Welcomed();
    v1::AgentMessage m;
    m.mutable_event()->set_kind(v1::Event::LOG);
    m.mutable_event()->set_message(std::string(5 << 20, 'x'));
    grpc::Status st = s.SendAndFinish(m);
    report("oversized message", Code(st),
           st.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED || st.error_code() == grpc::StatusCode::CANCELLED);
  }
  // 4. A snapshot in the victim's name, from another session.
  {
    Session s(channel, "hostile-as");
    s.Welcomed();
    grpc::Status st = s.SendAndFinish(SnapshotFrom(victim, "any"));
    report("snapshot in another agent's name", Code(st), st.error_code() == grpc::StatusCode::CANCELLED);
  }
  // 5. A corrupt histogram (a bucket far out of range).
  {
    Session s(channel, "hostile-hist");
    s.Welcomed();
    v1::AgentMessage m = SnapshotFrom("hostile-hist", "any");
    m.mutable_snapshot()->mutable_ops(0)->mutable_latency()->add_index(1u << 30);
    m.mutable_snapshot()->mutable_ops(0)->mutable_latency()->add_count(7);
    grpc::Status st = s.SendAndFinish(m);
    report("corrupt histogram", Code(st), st.error_code() == grpc::StatusCode::CANCELLED);
  }
  // 6. A well-formed snapshot of a run that does not exist: ignored, the
  //    session kept (it ends here after 5 s).
  {
    Session s(channel, "hostile-run");
    s.Welcomed();
    grpc::Status st = s.SendAndFinish(SnapshotFrom("hostile-run", "no-such-run"));
    std::printf("snapshot of another run: ignored, session kept until closed here (%s)\n", Code(st));
  }
  return bad == 0 ? 0 : 1;
}

}  // namespace
}  // namespace stampede

int main(int argc, char** argv) {
  std::string address, victim;
  int streams = 1000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--coordinator"))
      address = argv[i + 1];
    else if (!std::strcmp(argv[i], "--victim"))
      victim = argv[i + 1];
    else if (!std::strcmp(argv[i], "--streams"))
      streams = std::atoi(argv[i + 1]);
  }
  if (address.empty() || victim.empty() || streams < 1 || streams > 10000) {
    std::fprintf(stderr, "usage: hostile_agent --coordinator HOST:PORT --victim NAME [--streams 1..10000]\n");
    return 2;
  }
  return stampede::Main(address, victim, streams);
}
