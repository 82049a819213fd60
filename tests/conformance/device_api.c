/* Device queries of a host-only program (spec 18.7): no offload devices,
 * the host's device number is omp_get_num_devices(), and default-device-var
 * is an ICV of each task (OMP_DEFAULT_DEVICE sets it; CONF_EXPECT_DEVICE).
 * The kmpc runtimes tell libomptarget OMP_TARGET_OFFLOAD through
 * __kmpc_get_target_offload (0 disabled, 1 default, 2 mandatory;
 * CONF_EXPECT_OFFLOAD). omp_control_tool: env_tool.c. */
#include "check.h"

int main(void) {
  int ndev = omp_get_num_devices();
  CHECK_EQ("omp_get_num_devices()", ndev, 0);
  CHECK_EQ("omp_get_initial_device()", omp_get_initial_device(), ndev);
  CHECK_EQ("omp_get_device_num() on the host", omp_get_device_num(), omp_get_initial_device());
  /* omp.h makes omp_is_initial_device inline in host code; call the export. */
  int (*is_initial)(void) = (int (*)(void))(uintptr_t)dlsym(RTLD_DEFAULT, "omp_is_initial_device");
  CHECK(is_initial && is_initial() == 1, "the exported omp_is_initial_device() is not 1 on the host");
  CHECK_EQ("omp_is_initial_device()", omp_is_initial_device(), 1);

  long want = conf_env_long("CONF_EXPECT_DEVICE", 0);
  CHECK_EQ("initial omp_get_default_device()", omp_get_default_device(), want);
  omp_set_default_device(3);
  CHECK_EQ("omp_get_default_device() after omp_set_default_device(3)", omp_get_default_device(), 3);
  int inherited = 1, in_parallel_ok = 1;
#pragma omp parallel num_threads(3) reduction(&& : inherited, in_parallel_ok)
  {
    inherited = omp_get_default_device() == 3;
    omp_set_default_device(10 + omp_get_thread_num());
    in_parallel_ok = omp_get_default_device() == 10 + omp_get_thread_num() && omp_get_device_num() == ndev &&
                     omp_get_num_devices() == ndev;
  }
  CHECK(inherited, "a team did not inherit default-device-var");
  CHECK(in_parallel_ok, "omp_set_default_device in a thread of a team did not take");
  CHECK_EQ("omp_get_default_device() after a region that set it", omp_get_default_device(), 3);

  int (*offload)(void) = (int (*)(void))(uintptr_t)dlsym(RTLD_DEFAULT, "__kmpc_get_target_offload");
  if (offload) CHECK_EQ("__kmpc_get_target_offload()", offload(), conf_env_long("CONF_EXPECT_OFFLOAD", 1));
  return conf_end();
}
