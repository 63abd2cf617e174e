#include "cli/tls_options.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "common/log.h"

namespace stampede::cli {

StatusOr<std::string> CertificateCommonName(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "r"), &std::fclose);
  if (!f) return Status::FromErrno("cannot read the certificate " + path, errno);
  std::unique_ptr<X509, void (*)(X509*)> cert(PEM_read_X509(f.get(), nullptr, nullptr, nullptr), &X509_free);
  if (!cert) return Status::Invalid(path + " is not a PEM certificate");
  char cn[256];
  const int n = X509_NAME_get_text_by_NID(X509_get_subject_name(cert.get()), NID_commonName, cn, sizeof cn);
  if (n <= 0) return Status::Invalid("the certificate " + path + " has no common name; give --name");
  return std::string(cn, static_cast<size_t>(n));
}

namespace po = boost::program_options;
namespace {

StatusOr<std::string> ReadPem(const std::string& flag, const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::FromErrno("--" + flag + " " + path, errno);
  std::stringstream ss;
  ss << in.rdbuf();
  if (ss.str().find("-----BEGIN") == std::string::npos) {
    return Status::Invalid("--" + flag + " " + path + ": not a PEM file");
  }
  return ss.str();
}

Status CheckComplete(const TlsOptions& o) {
  if (o.cert.empty() || o.key.empty() || o.ca.empty()) {
    return Status::Invalid("mutual TLS needs all of --tls-cert, --tls-key and --tls-ca");
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
  if (IsLoopback(address)) return Status::Ok();
  if (o.insecure) {
    SLOG(kWarn) << "--insecure: plaintext gRPC on " << address
                << ": anyone on the network can read plans and the submit token in transit, and pose as an agent";
    return Status::Ok();
  }
  return Status::Invalid(address +
                         " is not a loopback address: use mutual TLS (--tls-cert, "
                         "--tls-key, --tls-ca) or pass --insecure");
}

}  // namespace

bool IsLoopback(const std::string& address) {
  // HOST:PORT, [V6]:PORT, or a bare host. The host must parse as an address
  // (a name such as 127.example.com is not loopback, whatever it starts with).
  std::string host = address;
  if (!host.empty() && host.front() == '[') {
    const size_t close = host.find(']');
    if (close == std::string::npos) return false;
    host = host.substr(1, close - 1);
  } else if (std::count(host.begin(), host.end(), ':') == 1) {
    host = host.substr(0, host.find(':'));
  }
  if (host == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  // ::ffff:127.x.y.z
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

std::string TlsConnectHint(const TlsOptions& tls) {
  if (!tls.enabled()) return "";
  return " (mutual TLS: if the coordinator is up, it or this side refused a certificate: --tls-cert must be "
         "signed by the CA the coordinator's --tls-ca names, and --tls-ca here by the one that signed the "
         "coordinator's; the coordinator's log says 'Handshake failed')";
}

void TlsOptions::AddTo(po::options_description* desc) {
  desc->add_options()("tls-cert", po::value(&cert), "PEM certificate of this side")(
      "tls-key", po::value(&key), "PEM private key of this side")("tls-ca", po::value(&ca),
                                                                  "PEM CA that signed the other side's certificate")(
      "insecure", po::bool_switch(&insecure), "allow plaintext gRPC on non-loopback addresses");
}

StatusOr<std::shared_ptr<grpc::ServerCredentials>> TlsOptions::ServerCredentials(const std::string& address) const {
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

StatusOr<std::shared_ptr<grpc::ChannelCredentials>> TlsOptions::ChannelCredentials(const std::string& address) const {
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
