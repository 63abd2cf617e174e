#include "coordinator/agent_link.h"

#include <memory>

#include "common/clock.h"
#include "common/log.h"
#include "common/version.h"
#include "coordinator/agent_registry.h"
#include "coordinator/session_limits.h"

namespace stampede::coordinator {
namespace {

// One message from a welcomed agent. False: it sent what cannot be trusted
// and is cut off.
bool Dispatch(AgentRegistry* registry, RemoteAgent* session, const v1::AgentMessage& m) {
  switch (m.msg_case()) {
    case v1::AgentMessage::kHeartbeat: {
      v1::CoordinatorMessage ack;
      ack.mutable_heartbeat_ack()->set_echo_agent_ns(m.heartbeat().agent_send_ns());
      ack.mutable_heartbeat_ack()->set_coord_time_ns(MonoNowNs());
      session->Send(ack);
      return true;
    }
    case v1::AgentMessage::kSnapshot:
      if (std::string why = SnapshotProblem(m.snapshot(), session->name()); !why.empty()) {
        // Nothing it sends can be trusted any more: it is a lost agent.
        SLOG(kWarn) << "agent " << session->name() << " sent " << why << "; disconnecting it";
        session->Cancel("sent " + why);
        return false;
      }
      if (auto l = registry->listener()) l->OnSnapshot(session->name(), m.snapshot());
      return true;
    case v1::AgentMessage::kEvent:
      if (auto l = registry->listener()) l->OnEvent(session->name(), m.event());
      return true;
    case v1::AgentMessage::kNodeStats:
      // Only a node it declared, with numbers that can be (a bad one is
      // dropped: it is a gauge, not a count).
      if (auto l = registry->listener(); l && NodeStatsSane(session->hello(), m.node_stats())) {
        l->OnNodeStats(session->name(), m.node_stats());
      }
      return true;
    default:
      return true;
  }
}

}  // namespace

Status ServeAgent(AgentRegistry* registry, AgentLink* link, const v1::Hello& hello, const std::string& peer) {
  auto session = std::make_shared<RemoteAgent>(hello, link);
  if (!registry->Add(session)) {
    SLOG(kWarn) << "refused a second agent named " << session->name();
    return Status::Exists("an agent named " + session->name() + " is already connected");
  }
  SLOG(kInfo) << "agent " << session->name() << " connected (" << peer << ")"
              << (hello.has_run() ? " in run " + hello.run().run_id() : "");
  v1::CoordinatorMessage welcome;
  welcome.mutable_welcome()->set_coordinator_version(kVersion);
  welcome.mutable_welcome()->set_coord_time_ns(MonoNowNs());
  if (auto l = registry->listener()) l->OnAgentJoined(session, welcome.mutable_welcome());
  session->Send(welcome);
  registry->Welcomed(session);
  v1::AgentMessage m;
  while (link->Read(&m)) {
    session->Touch();
    if (!Dispatch(registry, session.get(), m)) break;
  }
  session->Close();
  const bool current = registry->Remove(session);
  std::string reason = session->cancel_reason();
  if (reason.empty()) reason = "its connection closed";
  SLOG(kInfo) << "agent " << session->name() << " disconnected (" << reason << ")";
  if (current) {
    if (auto l = registry->listener()) l->OnAgentLost(session->name(), reason);
  }
  return Status::Ok();
}

}  // namespace stampede::coordinator
