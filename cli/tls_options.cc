#include "cli/tls_options.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace stampede::cli {
namespace po = boost::program_options;
namespace {

StatusOr<std::string> ReadPem(const std::string& flag, const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::Error("--" + flag + " " + path + ": " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  if (ss.str().find("-----BEGIN") == std::string::npos) {
    return Status::Error("--" + flag + " " + path + ": not a PEM file");
  }
  return ss.str();
}

Status CheckComplete(const TlsOptions& o) {
  if (o.cert.empty() || o.key.empty() || o.ca.empty()) {
    return Status::Error("mutual TLS needs all of --tls-cert, --tls-key and --tls-ca");
  }
  return Status::Ok();
}

struct Pems {
  std::string cert, key, ca;
};

// All three files, or the first one that cannot be read.
StatusOr<Pems> LoadPems(const TlsOptions& o) {
  Status s = CheckComplete(o);
  if (!s.ok()) return s;
  auto c = ReadPem("tls-cert", o.cert), k = ReadPem("tls-key", o.key), a = ReadPem("tls-ca", o.ca);
  for (auto* r : {&c, &k, &a}) {
    if (!r->ok()) return r->status();
  }
  return Pems{*c, *k, *a};
}

Status Plaintext(const TlsOptions& o, const std::string& address) {
  if (o.insecure || IsLoopback(address)) return Status::Ok();
  return Status::Error(address + " is not a loopback address: use mutual TLS (--tls-cert, "
                       "--tls-key, --tls-ca) or pass --insecure");
}

}  // namespace

bool IsLoopback(const std::string& address) {
  std::string host = address.substr(0, address.rfind(':'));
  if (!host.empty() && host.front() == '[') host = host.substr(1, host.size() - 2);
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

void TlsOptions::AddTo(po::options_description* desc) {
  desc->add_options()
      ("tls-cert", po::value(&cert), "PEM certificate of this side")
      ("tls-key", po::value(&key), "PEM private key of this side")
      ("tls-ca", po::value(&ca), "PEM CA that signed the other side's certificate")
      ("insecure", po::bool_switch(&insecure), "allow plaintext gRPC on non-loopback addresses");
}

StatusOr<std::shared_ptr<grpc::ServerCredentials>> TlsOptions::ServerCredentials(
    const std::string& address) const {
  if (!enabled()) {
    Status s = Plaintext(*this, address);
    if (!s.ok()) return s;
    return grpc::InsecureServerCredentials();
  }
  auto pems = LoadPems(*this);
  if (!pems.ok()) return pems.status();
  grpc::SslServerCredentialsOptions opts(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  opts.pem_root_certs = pems->ca;
  opts.pem_key_cert_pairs.push_back({pems->key, pems->cert});
  return grpc::SslServerCredentials(opts);
}

StatusOr<std::shared_ptr<grpc::ChannelCredentials>> TlsOptions::ChannelCredentials(
    const std::string& address) const {
  if (!enabled()) {
    Status s = Plaintext(*this, address);
    if (!s.ok()) return s;
    return grpc::InsecureChannelCredentials();
  }
  auto pems = LoadPems(*this);
  if (!pems.ok()) return pems.status();
  grpc::SslCredentialsOptions opts;
  opts.pem_root_certs = pems->ca;
  opts.pem_private_key = pems->key;
  opts.pem_cert_chain = pems->cert;
  return grpc::SslCredentials(opts);
}

}  // namespace stampede::cli
