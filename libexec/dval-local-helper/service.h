/* The sandbox's profile services (service.c). */
#ifndef DVAL_HELPER_SERVICE_H
#define DVAL_HELPER_SERVICE_H

/* Called inside the root, with only the caller's own descriptors open:
 * starts a supervisor for each service the root describes
 * (lib/profile_service.h) that is shared (shared = 1: by the snapshot's
 * services host, services_host.c) or not (0: by a sandbox's init).
 * Returns at once with how many it started; the caller reaps them. */
int services_start(int shared);
/* Before entering root: binds base/<name> (made if absent, owned by
 * the service's uid) over the socket directory of each shared service
 * the root describes; read-only unless rw. 0, or -1 with errno. */
int services_bind(const char *root, const char *base, int rw);

#endif
