// bobbin-info: the machine as Bobbin's scheduler sees it. Prints the
// collapsed topology tree, the default places (one per core) and the workers
// the runtime would start (one per place), so a user can check what
// BOBBIN_TOPOLOGY, taskset or a cgroup did before running a program.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/settings.hpp"
#include "scheduler/topology.hpp"

namespace {

using bobbin::sched::Level;
using bobbin::sched::Topology;

const char kUsage[] =
    "Usage: bobbin-info [--help]\n"
    "\n"
    "Prints the machine as Bobbin's scheduler sees it:\n"
    "  - the topology tree, after levels that split nothing were collapsed\n"
    "    (see scheduler/README.md);\n"
    "  - how many task lists each BOBBIN_TASKLIST level makes;\n"
    "  - the default places, one per core, as OS processor numbers;\n"
    "  - the workers, one per place: worker i runs on place i;\n"
    "  - which nested regions get their width from the moldable model\n"
    "    (BOBBIN_MOLD, OMP_DYNAMIC).\n"
    "\n"
    "Environment:\n"
    "  BOBBIN_TOPOLOGY  an hwloc synthetic description to model instead of the\n"
    "                   real machine, e.g. \"pack:2 numa:2 l3:2 core:4 pu:2\";\n"
    "                   its PUs map round-robin onto the processors this\n"
    "                   process may use.\n";

// "0-3,8,10-11": the way taskset and OMP_PLACES write processor sets.
std::string cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

void print(const Topology& t) {
  std::printf("Topology: %s%s\n", t.is_synthetic() ? "synthetic " : "", t.description().c_str());
  std::printf("Levels after collapse:");
  for (Level l : t.levels()) std::printf(" %s(%zu)", bobbin::sched::level_name(l), t.nodes(l).size());
  std::printf("\n\n%s\n", t.to_string().c_str());

  // The levels BOBBIN_TASKLIST accepts, from the finest.
  std::printf("Task lists per BOBBIN_TASKLIST level:");
  for (Level l : {Level::PU, Level::Core, Level::L3, Level::Numa, Level::Machine})
    std::printf(" %s=%zu", bobbin::sched::level_name(l), t.domains(l).size());
  std::printf("\n\n");

  const std::vector<std::vector<int>> places = t.core_places();
  std::printf("Places (one per core): %zu\n", places.size());
  for (std::size_t i = 0; i < places.size(); ++i) std::printf("  place %zu: {%s}\n", i, cpu_list(places[i]).c_str());

  std::printf("\nWorkers (one per place): %zu\n", places.size());
  for (std::size_t i = 0; i < places.size(); ++i)
    std::printf("  worker %zu -> place %zu -> OS cpus %s\n", i, i, cpu_list(places[i]).c_str());

  // The moldable model (scheduler/mold.hpp): BOBBIN_MOLD and dyn-var as the environment sets them.
  const bobbin::rt::Settings& st = bobbin::rt::settings();
  const char* mode = st.mold > 0    ? "on: every nested region's width is the model's"
                     : st.mold < 0  ? "off: nested regions get the width they ask for"
                     : st.dynamic   ? "auto, OMP_DYNAMIC=true: every nested region's width is the model's"
                                    : "auto, OMP_DYNAMIC=false: the width asked (the model only for regions "
                                      "opened while omp_set_dynamic(1) is in force)";
  std::printf("\nMoldable nested regions (BOBBIN_MOLD): %s\n", mode);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    std::fprintf(stderr, "bobbin-info: unknown argument '%s'\n\n%s", argv[i], kUsage);
    return 2;
  }
  print(*Topology::discover());
  return 0;
}
