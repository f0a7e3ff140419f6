/* The dval_image_* functions on the daytona executor: DVAL_EUNSUPPORTED,
 * with a message saying Daytona pulls images itself, and no request. */
#include "dval.h"
#include "harness.h"
#include "support_emulator.h"

static int never(const dval_image_info *info, void *ud)
{
    (void)info, (void)ud;
    return 0;
}

TEST(image_functions_unsupported_on_daytona)
{
    emu e;
    emu_start(&e);
    dval_client *c = emu_client(&e, NULL, 20, NULL);
    CHECK_INT(dval_image_pull(c, "debian:12", NULL, NULL),
              DVAL_EUNSUPPORTED);
    CHECK_CONTAINS(dval_client_errmsg(c), "pulls an image itself");
    CHECK_INT(dval_image_list(c, never, NULL), DVAL_EUNSUPPORTED);
    CHECK_INT(dval_image_remove(c, "debian:12"), DVAL_EUNSUPPORTED);
    CHECK_INT(emu_count(&e, NULL, NULL), 0);
    dval_client_free(c);
    emu_stop(&e);
}
