// Displays (display.cpp): the parts team.cpp and settings.cpp need besides
// the api.hpp entry points.
#pragma once

#include <string>

namespace bobbin::rt {

// Called once at the end of initialisation: OMP_DISPLAY_ENV, and the notice
// that OMP_TOOL asked for a tool Bobbin cannot load.
void report_at_startup();

// ICV values as OMP_DISPLAY_ENV shows them, for the settings table's printers:
// the place list ("{0:2},{2:2}") and the bind-var list ("spread,close"), or
// empty before the places are known.
std::string places_for_display();
std::string proc_bind_for_display();

// affinity-format-var when OMP_AFFINITY_FORMAT is not set (libomp's, so
// scripts that read libomp's lines read Bobbin's).
inline const char* default_affinity_format() { return "OMP: pid %P tid %i thread %n bound to OS proc set {%A}"; }

}  // namespace bobbin::rt
