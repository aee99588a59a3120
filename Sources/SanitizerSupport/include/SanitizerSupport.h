// What the checks' ThreadSanitizer builds need to see every lock as a lock.
//
// Nothing to call: the C file only adds annotations when it is built with
// ThreadSanitizer on Linux.
#ifndef WORKSHOP_SANITIZER_SUPPORT_H
#define WORKSHOP_SANITIZER_SUPPORT_H

/// Whether this build annotates `Mutex` for ThreadSanitizer (1) or needs not (0).
int workshop_sanitizer_annotates_mutex(void);

/// Whether this build is instrumented with ThreadSanitizer (1) or not (0), on
/// every platform.
int workshop_sanitizer_checks_threads(void);

#endif
