// The machine as a tree: reading it from hwloc and collapsing it.
//
// Problem. hwloc describes a machine with many levels: Machine, Package, Die,
// Groups, NUMA nodes, four kinds of caches, Core, PU. The scheduler hangs task
// lists on one level and its victim policies walk the tree from a worker's
// PU upwards, so every level costs a step, and a level that splits nothing
// (one L2 per core, one package per machine) costs a step for no
// information. On a laptop hwloc gives Machine > Package > L3 > L2 > L1 >
// Core > PU; the only question the scheduler can ask of it, "which PUs are
// near mine?", has one answer there: all of them.
//
// Rejected: keeping hwloc's tree as is (the walk would pay for the
// redundant levels, and "the parent of my core" would mean different things
// on different machines); collapsing node by node, dropping every node with
// a single child (a level would then exist under one package and not under
// the next, so BOBBIN_TASKLIST=l3 could not mean the same thing for every
// worker). MPC's topology trees collapse whole levels, and so do we.
//
// Building (the full tree). Only the levels of `Level` are kept: Machine,
// Package, NUMA, L3, L2, L1 (data or unified; hwloc's L1i is a separate type),
// Core, PU. Groups, Dies, instruction caches and L4/L5 pass their children to
// the nearest kept ancestor: the scheduler has no knob that names them.
// A node is made only if it has at least one usable PU below it (the real
// machine is restricted to the processors the process may use). hwloc 2
// hangs NUMA nodes off the side of the normal tree, as "memory children" of
// the object whose processors they are local to. For such an object X, a
// NUMA tree node is put directly under X, above X's children, when X's PUs
// are a strict subset of X's parent's: only then does the NUMA domain split
// something. Several NUMA nodes on one X (DDR and HBM, say) share the same
// processors and become one tree node: for placing work they are one domain.
//
// The collapse rule. The levels between the root and the leaves are visited
// from Package down to Core. A level is removed when each of its nodes is
// redundant in the tree as it stands: it has exactly one child (it covers
// the same PUs as that child) or it is its parent's only child (it covers
// the same PUs as its parent). Removing a node gives its children to its
// parent, in place and in order. The nodes of a removed level are spliced
// out one at a time in tree order, each re-checked first, so that a node and
// its single same-level child (hwloc accepts "l3:1 l3:1") never both go; a
// node whose re-check fails stays.
//   - The root (Machine) and the leaves (PU) are never removed. When every
//     core has one PU, Core is removed and the PU stands for its core.
//   - "Only child" matters at the top: a machine with one package and one
//     shared L3 has Machine > Package > L3 > ..., where the L3 has many
//     children but adds nothing to the root. This machine (one package, one
//     NUMA node, an L3 over two cores, private L2/L1, one PU per core)
//     collapses to Machine > PU, PU.
//   - In a chain of nodes with the same PUs, the root survives if it is in
//     the chain, otherwise the deepest (the most specific name).
//   - A level that splits something anywhere stays everywhere, so an
//     asymmetric machine may keep a node with one child.
//
// Invariants of the collapsed tree:
//   1. Every set of PUs that some node of the full tree covers is covered by
//      some node of the collapsed tree (a removal only ever drops a node
//      whose PUs a neighbour still in the tree also covers).
//   2. A node's children's PU ranges partition its own range, in order; the
//      leaves are the usable PUs in hwloc's order.
//   3. Root and leaves are the full tree's root and leaves.
//
// ancestor_at(pu, l) answers with the node that covers exactly the PUs of
// the full tree's level-l node above `pu` (invariant 1 says one exists),
// found by following, from each removed node, the neighbour that took its
// place. "The nearest survivor above" would be wrong: with one PU per core,
// BOBBIN_TASKLIST=core would share one list across the whole machine. When
// the full tree has no level-l node above `pu`, the answer is the deepest
// ancestor of a shallower level. Places are per core of the full tree, for
// the same reason.
#include "scheduler/topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "ult/log.hpp"
#include "ult/pin.hpp"

namespace bobbin::sched {

namespace {

constexpr std::size_t kLevels = std::size_t(kNumLevels);

const char* const kLevelNames[kLevels] = {"Machine", "Package", "NUMA", "L3", "L2", "L1", "Core", "PU"};
// The spellings BOBBIN_TASKLIST and parse_level accept.
const char* const kLevelKeys[kLevels] = {"machine", "package", "numa", "l3", "l2", "l1", "core", "pu"};

// A synthetic description making more PUs than this is refused before hwloc
// builds it. Origin: 8192 is Linux's largest NR_CPUS on x86-64
// (CONFIG_MAXSMP), so no real machine is bigger; hwloc 2.9 takes about 2 s
// to load a synthetic machine that size (measured), and a typo such as
// "core:10000" would otherwise hang start-up.
constexpr std::uint64_t kMaxSyntheticPus = 8192;

// The scheduler's level for an hwloc type; false for the types that pass
// their children through (Group, Die, instruction caches, L4, L5, ...).
bool level_of(hwloc_obj_type_t type, Level* out) {
  switch (type) {
    case HWLOC_OBJ_MACHINE: *out = Level::Machine; return true;
    case HWLOC_OBJ_PACKAGE: *out = Level::Package; return true;
    case HWLOC_OBJ_L3CACHE: *out = Level::L3; return true;
    case HWLOC_OBJ_L2CACHE: *out = Level::L2; return true;
    case HWLOC_OBJ_L1CACHE: *out = Level::L1; return true;
    case HWLOC_OBJ_CORE: *out = Level::Core; return true;
    case HWLOC_OBJ_PU: *out = Level::PU; return true;
    default: return false;
  }
}

// An upper bound on the PUs a synthetic description makes: the product of
// its levels' counts ("pack:2 core:4 pu:2" -> 16). Attributes in
// parentheses and memory levels in brackets ("[numa]") add no PUs. Anything
// this does not understand counts as 1: hwloc is the judge of the syntax,
// this only guards against sizes.
std::uint64_t synthetic_pu_bound(const std::string& desc) {
  std::uint64_t product = 1;
  std::size_t i = 0;
  while (i < desc.size()) {
    while (i < desc.size() && std::isspace(static_cast<unsigned char>(desc[i]))) ++i;
    // One token: up to the next space outside parentheses and brackets.
    std::string head;  // the token without its (...) and [...] parts
    int nesting = 0;
    for (; i < desc.size(); ++i) {
      char c = desc[i];
      if (nesting == 0 && std::isspace(static_cast<unsigned char>(c))) break;
      if (c == '(' || c == '[') ++nesting;
      if (nesting == 0) head += c;
      if ((c == ')' || c == ']') && nesting > 0) --nesting;
    }
    std::size_t colon = head.rfind(':');
    std::size_t digits = colon == std::string::npos ? 0 : colon + 1;
    std::uint64_t count = 0;
    bool any = false;
    for (std::size_t k = digits; k < head.size() && std::isdigit(static_cast<unsigned char>(head[k])); ++k) {
      count = std::min<std::uint64_t>(count * 10 + std::uint64_t(head[k] - '0'), kMaxSyntheticPus + 1);
      any = true;
    }
    if (any && count > 0) product = std::min<std::uint64_t>(product * count, kMaxSyntheticPus + 1);
  }
  return product;
}

// A node of the full tree, before and during the collapse.
struct RawNode {
  Level level;
  int os_index = -1;                // PU only
  RawNode* parent = nullptr;        // in the tree as it stands (the collapse rewrites it)
  RawNode* full_parent = nullptr;   // in the full tree (never rewritten)
  std::vector<RawNode*> children;   // in the tree as it stands
  RawNode* merged_into = nullptr;   // set when removed: the neighbour with the same PUs
  TopoNode* out = nullptr;          // the collapsed tree's node, survivors only
};

// Owns an hwloc bitmap for the length of a scope.
struct Bitmap {
  hwloc_bitmap_t b = hwloc_bitmap_alloc();
  Bitmap() {
    if (!b) fatal("out of memory allocating an hwloc bitmap for the topology tree");
  }
  ~Bitmap() { hwloc_bitmap_free(b); }
  Bitmap(const Bitmap&) = delete;
  Bitmap& operator=(const Bitmap&) = delete;
};

}  // namespace

const TopoNode& common_ancestor(const TopoNode& a, const TopoNode& b) {
  const TopoNode* x = &a;
  const TopoNode* y = &b;
  while (x->depth > y->depth) x = x->parent;
  while (y->depth > x->depth) y = y->parent;
  while (x != y) {
    x = x->parent;
    y = y->parent;
  }
  return *x;
}

std::vector<uint8_t> core_nearness(const Topology& topo) {
  std::vector<const TopoNode*> cores = topo.domains(Level::Core);
  std::size_t n = cores.size();
  std::vector<uint8_t> m(n * n);
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) m[a * n + b] = uint8_t(common_ancestor(*cores[a], *cores[b]).depth);
  return m;
}

const char* level_name(Level l) {
  std::size_t i = std::size_t(l);
  return i < kLevels ? kLevelNames[i] : "?";
}

bool parse_level(const std::string& s, Level* out) {
  std::string lower;
  for (char c : s) lower += char(std::tolower(static_cast<unsigned char>(c)));
  for (std::size_t i = 0; i < kLevels; ++i) {
    if (lower == kLevelKeys[i]) {
      *out = Level(i);
      return true;
    }
  }
  return false;
}

// Reads one hwloc topology into the full tree, collapses it, and fills a
// Topology. Used once per Topology, then dropped.
struct TopologyBuilder {
  hwloc_topology_t hw;
  hwloc_const_cpuset_t usable;  // the PUs to keep, in hwloc's (OS) numbering
  // Synthetic machines: the real processors the PUs map onto, round-robin
  // in tree order. Empty: hwloc's own os_index.
  std::vector<int> os_map;
  std::vector<std::unique_ptr<RawNode>> raw;
  RawNode* root = nullptr;
  std::vector<RawNode*> leaves;  // the PUs, in tree order
  Bitmap scratch;

  TopologyBuilder(hwloc_topology_t topology, hwloc_const_cpuset_t keep, std::vector<int> map)
      : hw(topology), usable(keep), os_map(std::move(map)) {}

  RawNode* add(Level l, RawNode* parent) {
    raw.push_back(std::make_unique<RawNode>());
    RawNode* n = raw.back().get();
    n->level = l;
    n->parent = n->full_parent = parent;
    if (parent) parent->children.push_back(n);
    return n;
  }

  int count_usable(hwloc_const_cpuset_t set) {
    hwloc_bitmap_and(scratch.b, set, usable);
    return hwloc_bitmap_weight(scratch.b);
  }

  // hwloc's memory children of an object are NUMA nodes or memory-side
  // caches leading to NUMA nodes, so any memory child means "NUMA here".
  bool numa_splits_at(hwloc_obj_t o) {
    return o->memory_arity > 0 && o->parent && count_usable(o->cpuset) < count_usable(o->parent->cpuset);
  }

  // Adds the kept descendants of `o` under `into`.
  void read_children(hwloc_obj_t o, RawNode* into) {
    for (hwloc_obj_t c = o->first_child; c; c = c->next_sibling) {
      if (!hwloc_bitmap_intersects(c->cpuset, usable)) continue;
      RawNode* target = into;
      Level l;
      if (level_of(c->type, &l)) {
        target = add(l, into);
        if (l == Level::PU) {
          target->os_index = os_map.empty() ? int(c->os_index) : os_map[leaves.size() % os_map.size()];
          leaves.push_back(target);
          continue;
        }
      }
      if (numa_splits_at(c)) target = add(Level::Numa, target);
      read_children(c, target);
    }
  }

  void read() {
    root = add(Level::Machine, nullptr);
    read_children(hwloc_get_root_obj(hw), root);
  }

  // Covers the same PUs as a neighbour in the tree as it stands.
  static bool redundant(const RawNode* n) { return n->children.size() == 1 || n->parent->children.size() == 1; }

  void collect(RawNode* n, Level l, std::vector<RawNode*>* out) {
    if (n->level == l) out->push_back(n);
    for (RawNode* c : n->children) collect(c, l, out);
  }

  // Gives n's children to its parent, in n's place. The node that stands
  // for n from now on is its only child if it has one (in a chain of equal
  // nodes the deepest, most specific one survives), else its parent.
  void splice_out(RawNode* n) {
    RawNode* p = n->parent;
    n->merged_into = n->children.size() == 1 ? n->children[0] : p;
    auto at = std::find(p->children.begin(), p->children.end(), n);
    std::size_t pos = std::size_t(at - p->children.begin());
    p->children.erase(at);
    p->children.insert(p->children.begin() + std::ptrdiff_t(pos), n->children.begin(), n->children.end());
    for (RawNode* c : n->children) c->parent = p;
    n->children.clear();
    n->parent = nullptr;
  }

  void collapse() {
    for (std::size_t l = std::size_t(Level::Machine) + 1; l < std::size_t(Level::PU); ++l) {
      std::vector<RawNode*> at;
      collect(root, Level(l), &at);
      if (at.empty() || !std::all_of(at.begin(), at.end(), redundant)) continue;
      // Re-checked one by one: removing a node can make a same-level
      // descendant the only holder of its PU set.
      for (RawNode* n : at)
        if (redundant(n)) splice_out(n);
    }
  }

  static RawNode* survivor(RawNode* n) {
    while (n->merged_into) n = n->merged_into;
    return n;
  }

  TopoNode* emit(Topology* t, RawNode* r, TopoNode* parent) {
    t->storage_.push_back(std::make_unique<TopoNode>());
    TopoNode* n = t->storage_.back().get();
    r->out = n;
    auto& same_level = t->by_level_[std::size_t(r->level)];
    n->level = r->level;
    n->index = int(same_level.size());
    n->depth = parent ? parent->depth + 1 : 0;
    n->parent = parent;
    n->first_pu = int(t->pus_.size());
    n->os_index = r->level == Level::PU ? r->os_index : -1;
    same_level.push_back(n);
    if (r->level == Level::PU) t->pus_.push_back(n);
    for (RawNode* c : r->children) n->children.push_back(emit(t, c, n));
    n->end_pu = int(t->pus_.size());
    return n;
  }

  // The deepest node of level `l` above leaf `r` in the full tree, or null.
  static RawNode* full_ancestor(RawNode* r, Level l) {
    for (RawNode* a = r; a; a = a->full_parent)
      if (a->level == l) return a;
    return nullptr;
  }

  void answer_ancestors(Topology* t) {
    for (std::size_t l = 0; l < kLevels; ++l) {
      t->at_level_[l].reserve(leaves.size());
      for (RawNode* leaf : leaves) {
        const TopoNode* found = nullptr;
        if (RawNode* a = full_ancestor(leaf, Level(l))) {
          found = survivor(a)->out;
        } else {
          found = leaf->out->parent;
          while (std::size_t(found->level) > l) found = found->parent;  // the root is Machine, level 0
        }
        t->at_level_[l].push_back(found);
      }
    }
  }

  void make_places(Topology* t) {
    const RawNode* current = nullptr;
    for (RawNode* leaf : leaves) {
      const RawNode* core = full_ancestor(leaf, Level::Core);
      if (!core || core != current) t->core_places_.emplace_back();
      t->core_places_.back().push_back(leaf->os_index);
      current = core;
    }
  }

  std::unique_ptr<Topology> build() {
    read();
    collapse();
    std::unique_ptr<Topology> t(new Topology);
    t->root_ = emit(t.get(), root, nullptr);
    answer_ancestors(t.get());
    make_places(t.get());
    return t;
  }
};

Topology::~Topology() = default;

std::unique_ptr<Topology> Topology::machine(const std::vector<int>& allowed) {
  // Shared and already loaded by ult/pin.cpp; only read here.
  hwloc_topology_t hw = ult::machine_topology();
  hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(hw);
  Bitmap keep;
  for (int c : allowed)
    if (c >= 0) hwloc_bitmap_set(keep.b, unsigned(c));
  hwloc_bitmap_and(keep.b, keep.b, all);
  if (hwloc_bitmap_iszero(keep.b)) {
    if (!allowed.empty()) warn("none of the %zu processors asked for is in this machine; using all of them", allowed.size());
    hwloc_bitmap_copy(keep.b, all);
  }
  TopologyBuilder b(hw, keep.b, {});
  std::unique_ptr<Topology> t = b.build();
  t->description_ = "real machine (" + std::to_string(t->num_pus()) + " of " +
                    std::to_string(hwloc_bitmap_weight(all)) + " PUs usable)";
  return t;
}

std::unique_ptr<Topology> Topology::synthetic(const std::string& desc, const std::vector<int>& real_cpus,
                                              std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return std::unique_ptr<Topology>();
  };
  if (synthetic_pu_bound(desc) > kMaxSyntheticPus)
    return fail("it has more than " + std::to_string(kMaxSyntheticPus) + " PUs");
  // The real machine's topology first: it is made once, and whichever is
  // made first decides which hwloc plugins load (ult/pin.cpp).
  ult::machine_topology();
  hwloc_topology_t hw;
  if (hwloc_topology_init(&hw) != 0) return fail("hwloc could not make an empty topology");
  struct Destroy {
    hwloc_topology_t h;
    ~Destroy() { hwloc_topology_destroy(h); }
  } destroy{hw};
  if (hwloc_topology_set_synthetic(hw, desc.c_str()) != 0)
    return fail("hwloc does not accept it as a synthetic topology");
  if (hwloc_topology_load(hw) != 0) return fail("hwloc could not build it");
  // Round-robin onto the real processors, so a model bigger than the
  // machine still runs (oversubscribed). Without real processors the
  // model's own numbering stays: useful for tests, not for pinning.
  TopologyBuilder b(hw, hwloc_topology_get_topology_cpuset(hw), real_cpus);
  std::unique_ptr<Topology> t = b.build();
  t->synthetic_ = true;
  t->description_ = desc;
  return t;
}

std::unique_ptr<Topology> Topology::discover() {
  std::vector<int> cpus = ult::allowed_cpus();
  const char* env = getenv("BOBBIN_TOPOLOGY");
  if (env) {  // set but empty: warned about, as any bad value
    std::string why;
    if (std::unique_ptr<Topology> t = synthetic(env, cpus, &why)) return t;
    warn("ignoring BOBBIN_TOPOLOGY='%s' (%s); using the real machine instead", env, why.c_str());
  }
  return machine(cpus);
}

const TopoNode& Topology::ancestor_at(int pu, Level l) const {
  BOBBIN_ASSERT(pu >= 0 && pu < num_pus() && std::size_t(l) < kLevels);
  return *at_level_[std::size_t(l)][std::size_t(pu)];
}

std::vector<const TopoNode*> Topology::domains(Level l) const {
  // PUs are in tree order and every domain covers a contiguous range of
  // them, so repeats are adjacent.
  std::vector<const TopoNode*> out;
  for (const TopoNode* n : at_level_[std::size_t(l)])
    if (out.empty() || out.back() != n) out.push_back(n);
  return out;
}

std::vector<Level> Topology::levels() const {
  std::vector<Level> out;
  for (std::size_t l = 0; l < kLevels; ++l)
    if (!by_level_[l].empty()) out.push_back(Level(l));
  return out;
}

std::vector<std::vector<int>> Topology::core_places() const { return core_places_; }

namespace {
void draw(const TopoNode& n, std::string* out) {
  out->append(std::size_t(n.depth) * 2, ' ');
  out->append(level_name(n.level));
  if (n.parent) out->append("#" + std::to_string(n.index));
  if (n.level == Level::PU) out->append(" (os " + std::to_string(n.os_index) + ")");
  out->push_back('\n');
  for (const TopoNode* c : n.children) draw(*c, out);
}
}  // namespace

std::string Topology::to_string() const {
  std::string out;
  draw(*root_, &out);
  return out;
}

}  // namespace bobbin::sched
