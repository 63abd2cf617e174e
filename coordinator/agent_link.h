// The wire to one agent, and what the coordinator does with it once the
// agent is let in: the seam between the run and its transport.
//
// The daemon's link is the agent's gRPC stream (coordinator.cc); the run
// controller's unit tests link scripted agents through in-memory queues
// (coordinator/fake_agent.h). Both are served by the same ServeAgent, so a
// test drives the same welcome, heartbeat, snapshot checks and loss path
// that a real agent does.
#ifndef STAMPEDE_COORDINATOR_AGENT_LINK_H_
#define STAMPEDE_COORDINATOR_AGENT_LINK_H_

#include <string>

#include "common/status.h"
#include "proto/stampede.pb.h"

namespace stampede::coordinator {

class AgentRegistry;

class AgentLink {
 public:
  virtual ~AgentLink() = default;
  // Blocks for the agent's next message; false once the link is closed or
  // cancelled.
  virtual bool Read(v1::AgentMessage* message) = 0;
  // False once the link is gone. Called under the session's lock, one at a
  // time.
  virtual bool Write(const v1::CoordinatorMessage& message) = 0;
  // Ends the link from the coordinator's side: Read returns false soon.
  virtual void Cancel() = 0;
};

// Serves an agent whose hello was read and checked (name, identity, the
// coordinator's limit): registers its session, welcomes it, hands its
// messages to the registry's listener until the link ends, then reports the
// loss. Returns an error of kind kAlreadyExists if a live agent of that name
// is connected. Blocks for the life of the link.
Status ServeAgent(AgentRegistry* registry, AgentLink* link, const v1::Hello& hello, const std::string& peer);

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_AGENT_LINK_H_
