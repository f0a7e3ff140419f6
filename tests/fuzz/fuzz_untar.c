/* Layer archives as the local helper's import reads them (untar.c: the
 * headers, pax records and GNU long names, then clean_name), bytes a
 * registry sends: never read outside a buffer, and a name clean_name
 * accepts is relative and has no ".." component. Each entry's data is
 * skipped as apply skips it; nothing is written anywhere. */
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "../../libexec/dval-local-helper/untar.c"

/* What untar.c takes from the helper's main.c: its refusals go nowhere */
void die_fd(int fd, const char *what)
{
    (void)fd;
    (void)what;
    abort();
}

int write_all(int fd, const char *s, size_t n)
{
    (void)fd;
    (void)s;
    (void)n;
    return 0;
}

int write_str(int fd, const char *s)
{
    (void)fd;
    (void)s;
    return 0;
}

static void check_clean(const char *name)
{
    FUZZ_ASSERT(name[0] != '/');
    for (const char *c = name; *c;) {
        size_t k = strcspn(c, "/");
        FUZZ_ASSERT(!(k == 2 && c[0] == '.' && c[1] == '.'));
        c += k + (c[k] == '/');
    }
}

FUZZ_TARGET(untar)
{
    int fd = memfd_create("fuzz-untar", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET)) {
        close(fd);
        return 0;
    }
    struct tar_in in = { .fd = fd, .oci = 1, .pax_size = -1 };
    static struct entry e;
    while (next(&in, &e) > 0) {
        FUZZ_ASSERT(memchr(e.name, 0, sizeof e.name));
        FUZZ_ASSERT(memchr(e.link, 0, sizeof e.link));
        if (clean_name(e.name) == 0)
            check_clean(e.name);
        if (skip(fd, padded(e.size)) < 0)
            break;
    }
    close(fd);
    return 0;
}
