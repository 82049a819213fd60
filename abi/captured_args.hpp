// The captured variables a __kmpc_fork_call or __kmpc_fork_teams passes
// after its microtask, gathered into the array a region body reads
// (rt::RegionBody::argv): on the caller's stack up to kInline of them, on
// the heap for a region that names more (team.cpp calls any number).
#pragma once

#include <cstdarg>
#include <memory>

namespace bobbin::abi {

class CapturedArgs {
 public:
  // Reads argc pointers from `ap` (the caller ends it).
  CapturedArgs(int argc, va_list ap) {
    if (argc > kInline) heap_.reset(new void*[std::size_t(argc)]);
    void** a = data();
    for (int i = 0; i < argc; ++i) a[i] = va_arg(ap, void*);
  }
  CapturedArgs(const CapturedArgs&) = delete;
  CapturedArgs& operator=(const CapturedArgs&) = delete;
  void** data() { return heap_ ? heap_.get() : inline_; }

 private:
  static constexpr int kInline = 64;
  void* inline_[kInline];
  std::unique_ptr<void*[]> heap_;
};

}  // namespace bobbin::abi
