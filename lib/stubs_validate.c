/* Temporary stubs for profiles and dval_validate (replaced by profile.c and validate.c). */
#include "internal.h"

DVAL_API const dval_profile * dval_profile_find(const char *name)
{
    (void)name;
    return NULL;
}

DVAL_API int dval_profile_register(const dval_profile *profile)
{
    (void)profile;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_profile_names(const char *const **names)
{
    (void)names;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_validation_init(dval_validation *req, size_t size)
{
    (void)req;
    (void)size;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_validate(dval_client *client, const dval_validation *req, dval_event_fn on_event, void *userdata, char **result_json)
{
    (void)client;
    (void)req;
    (void)on_event;
    (void)userdata;
    (void)result_json;
    return DVAL_EUNSUPPORTED;
}
