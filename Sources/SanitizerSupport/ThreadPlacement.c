// Pinning a thread to one core, for the test kit's `SeparateThreads`.
//
// `sched_getaffinity` and the CPU_* macros need _GNU_SOURCE, which Swift's
// Glibc module does not define, so the kit calls them through here.
#define _GNU_SOURCE
#include "SanitizerSupport.h"

#if defined(__linux__)
#include <sched.h>
#include <unistd.h>

// The cores the process may use, read once as it loads, on its main thread.
// Read later, `sched_getaffinity(0, ...)` gives the calling thread's mask,
// which a thread inherits from the one that created it: a pool thread
// created by an already pinned thread would see a single core, and two
// threads meant for two cores would share it.
static cpu_set_t process_cores;
static int process_cores_known;

__attribute__((constructor)) static void workshop_read_process_cores(void) {
  CPU_ZERO(&process_cores);
  process_cores_known = sched_getaffinity(0, sizeof process_cores, &process_cores) == 0;
}

int workshop_pin_thread_to_allowed_cpu(int place) {
  if (!process_cores_known) return 0;
  cpu_set_t allowed = process_cores;
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
