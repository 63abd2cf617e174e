#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/flags.h"
#include "report/compare.h"

namespace stampede::cli {
namespace po = boost::program_options;

int CompareCommand(const Args& args) {
  std::vector<std::string> dirs;
  std::string html;
  po::options_description desc("compare options");
  desc.add_options()("dir", po::value(&dirs)->composing(), "results directories")(
      "html", po::value(&html), "also write the comparison as HTML to this file");
  po::positional_options_description pos;
  pos.add("dir", -1);
  po::variables_map vm;
  const std::string usage =
      "usage: stampede compare RESULTS_DIR RESULTS_DIR... [--html FILE]\n"
      "Prints the runs side by side (markdown), best and worst of each row marked.";
  if (auto code = ParseFlags(usage, desc, pos, args, &vm)) return *code;
  if (dirs.size() < 2) {
    std::cerr << usage << "\n";
    return kExitBadInput;
  }
  std::vector<report::Json> summaries;
  for (const std::string& d : dirs) {
    std::ifstream in(d + "/summary.json");
    if (!in) {
      std::cerr << "stampede: " << d << "/summary.json: cannot read (is it a results directory? "
                << "`stampede report " << d << "` rebuilds it from the journal)\n";
      return kExitBadInput;
    }
    report::Json j = report::Json::parse(in, nullptr, false);
    if (j.is_discarded()) {
      std::cerr << "stampede: " << d << "/summary.json: not valid JSON\n";
      return kExitBadInput;
    }
    summaries.push_back(std::move(j));
  }
  const report::Comparison c = report::Compare(summaries, dirs);
  std::cout << report::RenderCompareMarkdown(c);
  if (!html.empty()) {
    std::ofstream out(html);
    out << report::RenderCompareHtml(c);
    if (!out) {
      std::cerr << "stampede: " << html << ": cannot write\n";
      return kExitFailed;
    }
  }
  return kExitOk;
}

}  // namespace stampede::cli
