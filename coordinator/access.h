// Who may do what on a coordinator.
//
// Over mutual TLS a peer is named by its certificate: the common name and
// every subject alternative name. An agent's hello must use one of its
// certificate's names (so one agent cannot claim another's nodes or send
// snapshots as another), and a certificate named in `submitters` may submit
// runs and abort them. Without a certificate (plaintext on loopback, or
// --insecure), submitting needs the coordinator's token: a random secret in
// a file only the coordinator's user can read (cli/submit_token.h), sent as
// the call's `x-stampede-token` metadata. Reading a run (Follow without
// abort, the dashboard) needs neither.
#ifndef STAMPEDE_COORDINATOR_ACCESS_H_
#define STAMPEDE_COORDINATOR_ACCESS_H_

#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

namespace stampede::coordinator {

inline constexpr char kTokenMetadata[] = "x-stampede-token";

struct AccessPolicy {
  // Certificate names (CN or SAN) that may submit and abort runs.
  std::vector<std::string> submitters = {"submitter"};
  // A caller presenting this token may submit; empty: no token is accepted.
  std::string token;
};

// The names of a peer authenticated by certificate (CN first, then SANs);
// empty when the peer presented none (plaintext).
std::vector<std::string> CertificateNames(const grpc::ServerContext& context);
// The token a caller sent, or "".
std::string PresentedToken(const grpc::ServerContext& context);

// "" if a caller with these certificate names (empty: none) and this token
// may submit or abort runs; otherwise why not, safe to log and to send back
// (it never echoes the token).
std::string SubmitProblem(const AccessPolicy& policy, const std::vector<std::string>& cert_names,
                          const std::string& token);
// "" if an agent whose certificate carries cert_names (empty: plaintext, no
// identity to check) may call itself `name`; otherwise why not.
std::string AgentIdentityProblem(const AccessPolicy& policy, const std::vector<std::string>& cert_names,
                                 const std::string& name);

// Compares in time that depends only on the lengths.
bool SecretEquals(const std::string& a, const std::string& b);

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_ACCESS_H_
