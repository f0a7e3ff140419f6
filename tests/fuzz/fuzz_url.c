/* The kept URL handle (daytona http_url.c) against curl's own parse: one
 * handle is given each line of the input in turn (a line starting with
 * '/' goes to a fixed origin, so the same-origin fast path is taken), and
 * after each the handle must hold the URL a fresh handle parsing the
 * whole line holds, or both must refuse it. A difference would send a
 * request somewhere its URL does not say. The one difference allowed is
 * the case of a percent-encoding's hex digits (curl lowercases those of
 * a part set alone; RFC 3986 6.2.2.1: the same URL). */
#include <ctype.h>
#include <stdio.h>

#include "fuzz.h"
#include "executor/daytona/http_int.h"

#define FUZZ_URL_ORIGIN "http://127.0.0.1:3000"

/* The whole URL a fresh handle makes of url, or NULL when curl refuses
 * it (malloc'd by curl). */
static char *parsed_whole(const char *url)
{
    CURLU *u = curl_url();
    char *s = NULL;
    if (u && !curl_url_set(u, CURLUPART_URL, url,
                           CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME))
        curl_url_get(u, CURLUPART_URL, &s, 0);
    curl_url_cleanup(u);
    return s;
}

static int nocase_eq(char x, char y)
{
    return tolower((unsigned char)x) == tolower((unsigned char)y);
}

/* 1 when a and b are the same but for the case of the hex digits of a
 * '%' followed by two of them */
static int same_url(const char *a, const char *b)
{
    while (*a && *a == *b) {
        int esc = *a == '%' && isxdigit((unsigned char)a[1]) &&
                  isxdigit((unsigned char)a[2]);
        if (esc && !(nocase_eq(a[1], b[1]) && nocase_eq(a[2], b[2])))
            return 0;
        size_t step = esc ? 3 : 1;
        a += step;
        b += step;
    }
    return *a == *b;
}

static void check_line(CURL *e, dt_urlh *h, const char *line)
{
    char url[2200], ebuf[CURL_ERROR_SIZE];
    snprintf(url, sizeof url, "%s%s", line[0] == '/' ? FUZZ_URL_ORIGIN : "",
             line);
    char *want = parsed_whole(url);
    CURLcode r = dt_url_apply(e, h, url, ebuf);
    if (r == CURLE_OUT_OF_MEMORY) {
        curl_free(want);
        return;
    }
    char *got = NULL;
    if (r == CURLE_OK)
        curl_url_get(h->u, CURLUPART_URL, &got, 0);
    FUZZ_ASSERT((r == CURLE_OK) == (want != NULL));
    FUZZ_ASSERT(!want || (got && same_url(got, want)));
    curl_free(got);
    curl_free(want);
}

FUZZ_TARGET(url)
{
    char *text = fuzz_cstr(data, size > 8192 ? 8192 : size);
    CURL *e = curl_easy_init();
    dt_urlh h = { 0 };
    char *save = NULL;
    for (char *line = text && e ? strtok_r(text, "\n", &save) : NULL;
         line; line = strtok_r(NULL, "\n", &save))
        if (strlen(line) < 2000)
            check_line(e, &h, line);
    dt_urlh_free(&h);
    curl_easy_cleanup(e);
    free(text);
    return 0;
}
