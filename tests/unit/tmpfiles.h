/* Files a unit test writes for the library to read (seeds, profile
 * files): in a directory of its own, made on first use from a
 * mkdtemp(3) template ("/tmp/dval-unit-NAME-XXXXXX") and again after a
 * tmp_remove. */
#ifndef DVAL_TESTS_TMPFILES_H
#define DVAL_TESTS_TMPFILES_H

/* dir/name holding text; the path stays valid for 7 more calls. */
const char *tmp_put(char *dir, const char *name, const char *text);
/* Removes dir and everything in it. */
void tmp_remove(const char *dir);

#endif
