/* Whole Daytona validations against the emulator (session and sandbox
 * isolation, and through a pool) while the calling thread takes a signal
 * every ~50 us, as in a Go host: every wait of the library (curl's, the
 * WebSocket's, the backoff sleeps) must resume after EINTR. */
#include <stdio.h>

#include "harness.h"
#include "support_emulator.h"
#include "stress/sigstorm.h"

TEST(test_eintr__daytona)
{
    emu e;
    dval_client *c = emu_fast(&e);
    int bad = sigstorm_validations(c, "eintr-pool", 6);
    dval_client_free(c);
    emu_stop(&e);
    CHECK_INT(bad, 0);
}
