/* The sandbox's long-lived services (service.c). */
#ifndef DVAL_HELPER_SERVICE_H
#define DVAL_HELPER_SERVICE_H

#include <sys/types.h>

/* Called by the init inside the sandbox's root, with only its own
 * descriptors open: starts a supervisor of each service the root has
 * (none: nothing happens). Returns at once with the supervisor's pid
 * (0: none started, -1: the fork failed); the init reaps it. */
pid_t services_start(void);

#endif
