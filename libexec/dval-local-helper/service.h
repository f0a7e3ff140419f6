/* The sandbox's long-lived services (service.c). */
#ifndef DVAL_HELPER_SERVICE_H
#define DVAL_HELPER_SERVICE_H

/* Called by the init inside the sandbox's root, with only its own
 * descriptors open: starts a supervisor of each service the root has
 * (none: nothing happens). Returns at once; the init reaps the supervisor. */
void services_start(void);

#endif
