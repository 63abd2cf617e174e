// Transport security flags shared by `coordinator`, `agent` and `run`.
//
// Mutual TLS: both sides present a certificate signed by the same CA.
// Plaintext is allowed on loopback, or anywhere with --insecure.
#ifndef STAMPEDE_CLI_TLS_OPTIONS_H_
#define STAMPEDE_CLI_TLS_OPTIONS_H_

#include <grpcpp/grpcpp.h>

#include <boost/program_options.hpp>
#include <memory>
#include <string>

#include "common/status.h"

namespace stampede::cli {

struct TlsOptions {
  std::string cert;
  std::string key;
  std::string ca;
  bool insecure = false;

  void AddTo(boost::program_options::options_description* desc);
  bool enabled() const { return !cert.empty() || !key.empty() || !ca.empty(); }

  // address: where we listen or dial; used for the loopback rule.
  StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(const std::string& address) const;
  StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(const std::string& address) const;
};

bool IsLoopback(const std::string& address);

// The common name of the PEM certificate in `path` (an agent's default
// --name: the coordinator checks the name against the certificate anyway).
StatusOr<std::string> CertificateCommonName(const std::string& path);

// What to add to a failed connection's message: with mutual TLS, a peer
// that refuses our certificate only closes the connection, so say which
// flags to check.
std::string TlsConnectHint(const TlsOptions& tls);

}  // namespace stampede::cli

#endif  // STAMPEDE_CLI_TLS_OPTIONS_H_
