/* Initialise the library before starting threads; clean up at the end. */
#include <stdio.h>
#include <dval.h>

int main(void)
{
    if (dval_global_init() < 0) {
        fprintf(stderr, "cannot initialise libdaytona-validate\n");
        return 1;
    }
    /* ... start threads, create clients ... */
    dval_global_cleanup();
    return 0;
}
