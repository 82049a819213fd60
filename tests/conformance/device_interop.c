// LIBOMP14-DEFECT: without libomptarget loaded, the interop queries never set the return code and return NULL for every name and description
/* Interop queries on omp_interop_none (spec 18.12): no implementation-defined
 * properties, and every property query fails with omp_irc_empty (or
 * omp_irc_out_of_range for a property that does not exist) and returns 0 or
 * NULL; names and type descriptions exist for every standard property. */
#include "check.h"

static const char *const kNames[] = {"targetsync", "device_context", "device", "platform", "device_num",
                                     "vendor_name", "vendor", "fr_name", "fr_id"};

int main(void) {
  const omp_interop_t none = omp_interop_none;
  CHECK_EQ("omp_get_num_interop_properties(omp_interop_none)", omp_get_num_interop_properties(none), 0);
  for (int id = omp_ipr_first; id < 0; id++) {
    int rc = 12345;
    CHECK_EQ("omp_get_interop_int(none) value", omp_get_interop_int(none, (omp_interop_property_t)id, &rc), 0);
    CHECK_EQ("omp_get_interop_int(none) return code", rc, omp_irc_empty);
    rc = 12345;
    CHECK(omp_get_interop_ptr(none, (omp_interop_property_t)id, &rc) == NULL && rc == omp_irc_empty,
          "omp_get_interop_ptr(none, %d): rc %d", id, rc);
    rc = 12345;
    CHECK(omp_get_interop_str(none, (omp_interop_property_t)id, &rc) == NULL && rc == omp_irc_empty,
          "omp_get_interop_str(none, %d): rc %d", id, rc);
    const char *name = omp_get_interop_name(none, (omp_interop_property_t)id);
    CHECK(name && strcmp(name, kNames[id - omp_ipr_first]) == 0, "omp_get_interop_name(%d) is %s, want %s", id,
          name ? name : "NULL", kNames[id - omp_ipr_first]);
    const char *type = omp_get_interop_type_desc(none, (omp_interop_property_t)id);
    CHECK(type && *type, "omp_get_interop_type_desc(%d) is empty", id);
  }
  int rc = 12345;
  CHECK(omp_get_interop_int(none, (omp_interop_property_t)5, &rc) == 0 && rc == omp_irc_out_of_range,
        "omp_get_interop_int(none, 5): rc %d, want omp_irc_out_of_range", rc);
  CHECK(omp_get_interop_name(none, (omp_interop_property_t)(omp_ipr_first - 1)) == NULL,
        "a name for a property below omp_ipr_first");
  CHECK(omp_get_interop_int(none, omp_ipr_fr_id, NULL) == 0, "a NULL return-code pointer");
  for (int r = omp_irc_other; r <= omp_irc_no_value; r++) {
    const char *d = omp_get_interop_rc_desc(none, (omp_interop_rc_t)r);
    CHECK(d && *d, "omp_get_interop_rc_desc(%d) is empty", r);
  }
  return conf_end();
}
