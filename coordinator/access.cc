#include "coordinator/access.h"

#include <grpc/grpc_security_constants.h>

#include <algorithm>

#include "common/strings.h"

namespace stampede::coordinator {
namespace {

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string Described(const std::vector<std::string>& names) { return names.empty() ? "no name" : Join(names, ", "); }

}  // namespace

std::vector<std::string> CertificateNames(const grpc::ServerContext& context) {
  std::vector<std::string> names;
  auto auth = context.auth_context();
  if (!auth || !auth->IsPeerAuthenticated()) return names;
  for (const char* property : {GRPC_X509_CN_PROPERTY_NAME, GRPC_X509_SAN_PROPERTY_NAME}) {
    for (const grpc::string_ref& v : auth->FindPropertyValues(property)) {
      std::string name(v.data(), v.size());
      if (!name.empty() && !Contains(names, name)) names.push_back(std::move(name));
    }
  }
  return names;
}

std::string PresentedToken(const grpc::ServerContext& context) {
  const auto& md = context.client_metadata();
  auto it = md.find(kTokenMetadata);
  return it == md.end() ? std::string() : std::string(it->second.data(), it->second.size());
}

std::string SubmitProblem(const AccessPolicy& policy, const std::vector<std::string>& cert_names,
                          const std::string& token) {
  for (const std::string& n : cert_names) {
    if (Contains(policy.submitters, n)) return "";
  }
  if (!token.empty() && !policy.token.empty() && SecretEquals(token, policy.token)) return "";
  if (!cert_names.empty()) {
    return "the certificate (" + Described(cert_names) +
           ") is not a submitter's (the coordinator's --submitter: " + Described(policy.submitters) + ")";
  }
  return token.empty() ? "no certificate and no token: submit with a submitter's certificate, or from the "
                         "coordinator's host with its token file (--token-file)"
                       : "the token is not this coordinator's (see its --token-file)";
}

std::string AgentIdentityProblem(const AccessPolicy& policy, const std::vector<std::string>& cert_names,
                                 const std::string& name) {
  if (cert_names.empty()) return "";  // plaintext: nothing to check against
  if (Contains(policy.submitters, name)) return "'" + name + "' is a submitter's name, not an agent's";
  if (Contains(cert_names, name)) return "";
  return "the hello says '" + name + "' but the certificate names " + Described(cert_names);
}

bool SecretEquals(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace stampede::coordinator
