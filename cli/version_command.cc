// `stampede version`: what this binary is (version, commit, build type) and
// the client libraries it talks to databases and peers with, for bug reports
// and for checking that every host runs the same build.
#include <google/protobuf/stubs/common.h>
#include <grpcpp/grpcpp.h>
#include <hiredis/hiredis.h>
#include <libpq-fe.h>
#include <mysql.h>

#include <boost/version.hpp>
#include <iostream>
#include <pqxx/version.hxx>

#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/version.h"

namespace stampede::cli {
namespace po = boost::program_options;

namespace {

std::string LibpqVersion() {
  const int v = PQlibVersion();  // e.g. 150018 for 15.18
  return std::to_string(v / 10000) + "." + std::to_string(v % 10000);
}

}  // namespace

int VersionCommand(const Args& args) {
  po::options_description desc("version options");
  po::variables_map vm;
  if (auto code = ParseFlags("usage: stampede version", desc, {}, args, &vm)) return *code;
  std::cout << "stampede " << kVersion << " (commit " << kGitCommit << ", " << kBuildType << " build)\n"
            << "  grpc " << grpc::Version() << ", protobuf "
            << google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION) << "\n"
            << "  libpq " << LibpqVersion() << ", libpqxx " << PQXX_VERSION << ", mariadb connector/c "
            << mysql_get_client_info() << ", hiredis " << HIREDIS_MAJOR << "." << HIREDIS_MINOR << "." << HIREDIS_PATCH
            << "\n"
            << "  boost " << BOOST_VERSION / 100000 << "." << BOOST_VERSION / 100 % 1000 << "." << BOOST_VERSION % 100
            << "\n";
  return kExitOk;
}

}  // namespace stampede::cli
