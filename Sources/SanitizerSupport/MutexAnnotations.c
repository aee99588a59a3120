// ThreadSanitizer annotations for Synchronization's `Mutex` on Linux.
//
// On Linux, `Mutex` takes its lock in inlined code when nobody holds it (an
// atomic that ThreadSanitizer sees) and otherwise in `_MutexHandle._lockSlow`,
// a function of the toolchain's uninstrumented Synchronization library that
// spins and waits on a PI futex. ThreadSanitizer never sees that acquire, so
// two threads taking the same `Mutex` in turn are reported as a data race:
// correct code would fail its race check whenever its lock was contended.
//
// Code under test is linked into the test executable, so the executable's
// definitions of the three slow paths below win over the library's. Each one
// calls the library's own and tells ThreadSanitizer what it did, on the
// address the inlined fast path uses: lock acquires, unlock releases.
//
// On macOS `Mutex` is an `os_unfair_lock`, which ThreadSanitizer intercepts.
#include "SanitizerSupport.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) && defined(__linux__)
#define WORKSHOP_ANNOTATE_MUTEX 1
#endif
#endif

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WORKSHOP_CHECKS_THREADS 1
#endif
#endif

#ifdef WORKSHOP_CHECKS_THREADS
int workshop_sanitizer_checks_threads(void) { return 1; }
#else
int workshop_sanitizer_checks_threads(void) { return 0; }
#endif

#ifdef WORKSHOP_ANNOTATE_MUTEX
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>

void __tsan_acquire(void *address);
void __tsan_release(void *address);

// Swift's calling convention: `self` of a method travels as the Swift context.
#define SWIFT_CC __attribute__((swiftcall))
#define SWIFT_SELF __attribute__((swift_context))

#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"

typedef SWIFT_CC void (*LockSlow)(uint32_t, void *SWIFT_SELF);
typedef SWIFT_CC void (*UnlockSlow)(void *SWIFT_SELF);
typedef SWIFT_CC bool (*TryLockSlow)(void *SWIFT_SELF);

static LockSlow library_lock_slow;
static UnlockSlow library_unlock_slow;
static TryLockSlow library_try_lock_slow;

// Resolved before any thread of the checks starts.
__attribute__((constructor)) static void resolve_library_functions(void) {
  library_lock_slow = (LockSlow)dlsym(RTLD_NEXT, LOCK_SLOW);
  library_unlock_slow = (UnlockSlow)dlsym(RTLD_NEXT, UNLOCK_SLOW);
  library_try_lock_slow = (TryLockSlow)dlsym(RTLD_NEXT, TRY_LOCK_SLOW);
}

SWIFT_CC void workshop_lock_slow(uint32_t owner, void *SWIFT_SELF handle) __asm__(LOCK_SLOW);
SWIFT_CC void workshop_unlock_slow(void *SWIFT_SELF handle) __asm__(UNLOCK_SLOW);
SWIFT_CC bool workshop_try_lock_slow(void *SWIFT_SELF handle) __asm__(TRY_LOCK_SLOW);

SWIFT_CC void workshop_lock_slow(uint32_t owner, void *SWIFT_SELF handle) {
  library_lock_slow(owner, handle);
  __tsan_acquire(handle);
}

SWIFT_CC void workshop_unlock_slow(void *SWIFT_SELF handle) {
  __tsan_release(handle);
  library_unlock_slow(handle);
}

SWIFT_CC bool workshop_try_lock_slow(void *SWIFT_SELF handle) {
  bool locked = library_try_lock_slow(handle);
  if (locked) __tsan_acquire(handle);
  return locked;
}

int workshop_sanitizer_annotates_mutex(void) { return 1; }
#else
int workshop_sanitizer_annotates_mutex(void) { return 0; }
#endif
