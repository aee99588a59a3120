// What the test kit needs from C: the checks' ThreadSanitizer builds need to
// see every lock as a lock (MutexAnnotations.c, nothing to call: it only adds
// annotations when it is built with ThreadSanitizer on Linux), and
// `SeparateThreads` pins its threads to cores of their own (ThreadPlacement.c).
#ifndef WORKSHOP_SANITIZER_SUPPORT_H
#define WORKSHOP_SANITIZER_SUPPORT_H

/// Whether this build annotates `Mutex` for ThreadSanitizer (1) or needs not (0).
int workshop_sanitizer_annotates_mutex(void);

/// Whether this build is instrumented with ThreadSanitizer (1) or not (0), on
/// every platform.
int workshop_sanitizer_checks_threads(void);

/// Pins the calling thread to the `place`-th core (counting from 0, round
/// again past the last) that the process may run on, starting from a core
/// picked by the process ID. Returns 1 if it did, 0
/// where the platform cannot pin (anywhere but Linux) or the call failed.
int workshop_pin_thread_to_allowed_cpu(int place);

#endif
