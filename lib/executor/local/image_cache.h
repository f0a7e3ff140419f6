/* image_cache.c: the local executor's image cache members (image_pull,
 * image_list, image_remove) over the pulled images of pull.c. */
#ifndef DVAL_LOCAL_IMAGE_CACHE_H
#define DVAL_LOCAL_IMAGE_CACHE_H

#include "local.h"

int lx_image_pull(void *ud, dval_call *c, const char *ref,
                  dval_chunk_fn progress, void *progress_ud,
                  dval_image_info *out);
int lx_image_list(void *ud, dval_call *c, dval_image_info_fn each,
                  void *each_ud);
int lx_image_remove(void *ud, dval_call *c, const char *ref);
/* Shared with image_remove.c: the pin file of an image (any spelling of
 * its reference); a pin's contents (DVAL_ENOTFOUND when it is absent or
 * not whole). */
int lx_image_pin_path(dval_call *c, const char *image, char *dst,
                      size_t cap);
int lx_image_read_pin(const char *path, dval_image_info *out);
/* Sets the three members in a local executor's vtable. */
void lx_image_cache_install(struct dval_executor *ex);

#endif
