// Shared flag parsing: prints usage on --help and a one-line error on bad
// flags.
#ifndef STAMPEDE_CLI_FLAGS_H_
#define STAMPEDE_CLI_FLAGS_H_

#include <boost/program_options.hpp>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace stampede::cli {

// Returns an exit code to return now (help or error), or nullopt to go on.
inline std::optional<int> ParseFlags(const std::string& usage, boost::program_options::options_description& desc,
                                     const boost::program_options::positional_options_description& pos,
                                     const std::vector<std::string>& args, boost::program_options::variables_map* vm) {
  namespace po = boost::program_options;
  desc.add_options()("help,h", "show this help");
  try {
    po::store(po::command_line_parser(args).options(desc).positional(pos).run(), *vm);
    // --help before the required options are checked: `stampede agent --help`
    // shows the options rather than complaining that --coordinator is missing.
    if (vm->count("help")) {
      std::cout << usage << "\n\n" << desc << "\n";
      return 0;
    }
    po::notify(*vm);
  } catch (const po::error& e) {
    std::cerr << "stampede: " << e.what() << "\n" << usage << "\n";
    return 2;
  }
  return std::nullopt;
}

}  // namespace stampede::cli

#endif  // STAMPEDE_CLI_FLAGS_H_
