// Pinning a thread to one core, for the test kit's `SeparateThreads`.
//
// `sched_getaffinity` and the CPU_* macros need _GNU_SOURCE, which Swift's
// Glibc module does not define, so the kit calls them through here.
#define _GNU_SOURCE
#include "SanitizerSupport.h"

#if defined(__linux__)
#include <sched.h>
#include <unistd.h>

int workshop_pin_thread_to_allowed_cpu(int place) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return 0;
  int count = CPU_COUNT(&allowed);
  if (count == 0 || place < 0) return 0;
  // Processes that grade side by side (the runner's lanes) start at
  // different cores, so that on a machine with more cores than a check
  // has threads they do not all crowd onto the first ones.
  int wanted = (int)(((long)getpid() + place) % count);
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    if (wanted-- > 0) continue;
    cpu_set_t only;
    CPU_ZERO(&only);
    CPU_SET(cpu, &only);
    return sched_setaffinity(0, sizeof only, &only) == 0;
  }
  return 0;
}
#else
int workshop_pin_thread_to_allowed_cpu(int place) {
  (void)place;
  return 0;
}
#endif
