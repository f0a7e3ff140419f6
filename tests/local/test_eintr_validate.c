/* Whole local validations (session and sandbox isolation, and through a
 * pool) while the calling thread takes a signal every ~50 us, as in a Go
 * host: every wait of the library must resume after EINTR. */
#include <stdio.h>
#include <stdlib.h>

#include "dval.h"
#include "lt.h"
#include "stress/sigstorm.h"

TEST(test_eintr_validate__local)
{
    if (getenv("DVAL_VALGRIND")) /* the uploads need openat2 */
        th_skip("openat2 is not available under valgrind");
    lt t;
    lt_open(&t, "eintr-validate");
    dval_client *c = lt_client(&t);
    int bad = sigstorm_validations(c, "eintr-pool", 6);
    dval_client_free(c);
    CHECK_INT(bad, 0);
    lt_close(&t);
}
