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

// An integer flag within [min, max], read as a signed number so that "-3"
// for an unsigned field is refused rather than wrapped to 4294967293.
// Errors surface from ParseFlags like any bad flag.
template <typename T>
boost::program_options::typed_value<int64_t>* Bounded(T* dest, const std::string& name, int64_t min, int64_t max) {
  namespace po = boost::program_options;
  return po::value<int64_t>()->default_value(int64_t(*dest))->notifier([dest, name, min, max](int64_t v) {
    if (v < min || v > max) {
      throw po::error("--" + name + ": expected " + std::to_string(min) + " to " + std::to_string(max) + ", found " +
                      std::to_string(v));
    }
    *dest = static_cast<T>(v);
  });
}

// Returns an exit code to return now (help or error), or nullopt to go on.
inline std::optional<int> ParseFlags(const std::string& usage, boost::program_options::options_description& desc,
                                     const boost::program_options::positional_options_description& pos,
                                     const std::vector<std::string>& args, boost::program_options::variables_map* vm) {
  namespace po = boost::program_options;
  desc.add_options()("help,h", "show this help");
  try {
    // No guessing: `--agent` is not taken for `--agent-config`, so a flag
    // added later can never change what an old command line meant.
    const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(args).options(desc).positional(pos).style(style).run(), *vm);
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
