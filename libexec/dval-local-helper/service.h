/* The sandbox's profile services (service.c). */
#ifndef DVAL_HELPER_SERVICE_H
#define DVAL_HELPER_SERVICE_H

/* Called by the init inside the sandbox's root, with only its own
 * descriptors open: starts a supervisor for each service the root
 * describes (lib/profile_service.h). Returns at once with how many it
 * started; the init reaps them. */
int services_start(void);

#endif
