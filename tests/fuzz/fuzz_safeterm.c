/* A hostile program's output through the CLI's terminal filter
 * (examples/cli/safeterm.c), in two pieces split where the first byte
 * says, then flushed: what reaches the terminal holds no control but
 * tab, newline, carriage return (unless inert_cr) and colour (ESC [
 * digits;: m), and no C1 control for a terminal in UTF-8 mode or not: a
 * byte 0x80..0x9F only inside a well-formed UTF-8 character that is not
 * itself U+0080..U+009F. Each call writes within SAFETERM_OUT. */
#include "fuzz.h"
#include "../../examples/cli/safeterm.c"

/* Length of the well-formed UTF-8 character at s (its code point in
 * *cp), 0 when the bytes are not one (overlong, surrogate, past
 * U+10FFFF, cut short). */
static size_t st_utf8(const unsigned char *s, size_t n, unsigned *cp)
{
    size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 1;
    unsigned lo = 0x80, hi = 0xbf, v = s[0] & (0x7f >> len);
    if (s[0] < 0xc2 || s[0] > 0xf4 || len > n)
        return 0;
    lo = s[0] == 0xe0 ? 0xa0 : s[0] == 0xf0 ? 0x90 : lo;
    hi = s[0] == 0xed ? 0x9f : s[0] == 0xf4 ? 0x8f : hi;
    for (size_t i = 1; i < len; i++) {
        if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf))
            return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    *cp = v;
    return len;
}

static void st_check_inert(const unsigned char *s, size_t n, int inert_cr)
{
    for (size_t i = 0; i < n;) {
        unsigned cp, c = s[i];
        size_t len;
        if (c == 0x1b) { /* colour only */
            size_t j = i + 1;
            FUZZ_ASSERT(j < n && s[j] == '[');
            for (j++; j < n && strchr("0123456789;:", s[j]) && s[j]; j++)
                ;
            FUZZ_ASSERT(j < n && s[j] == 'm');
            i = j + 1;
        } else if (c < 0x20 || c == 0x7f) {
            FUZZ_ASSERT(c == '\t' || c == '\n' || (c == '\r' && !inert_cr));
            i++;
        } else if (c < 0x80) {
            i++;
        } else if ((len = st_utf8(s + i, n - i, &cp)) > 0) {
            FUZZ_ASSERT(cp > 0x9f);
            i += len;
        } else {
            FUZZ_ASSERT(c >= 0xa0); /* a lone byte: not C1 in 8 bits */
            i++;
        }
    }
}

FUZZ_TARGET(safeterm)
{
    if (size < 1)
        return 0;
    safeterm st = { .inert_cr = data[0] & 1 };
    size_t cut = (size_t)(data[0] >> 1) % size + 1, n = size - 1;
    const char *in = (const char *)data + 1;
    cut = cut > n ? n : cut;
    unsigned char *out = malloc(SAFETERM_OUT(n) * 2 + 64);
    if (!out)
        return 0;
    size_t a = safeterm_filter(&st, in, cut, (char *)out);
    FUZZ_ASSERT(a <= SAFETERM_OUT(cut));
    size_t b = safeterm_filter(&st, in + cut, n - cut, (char *)out + a);
    FUZZ_ASSERT(b <= SAFETERM_OUT(n - cut));
    size_t f = safeterm_flush(&st, (char *)out + a + b);
    FUZZ_ASSERT(f <= SAFETERM_OUT(0));
    st_check_inert(out, a + b + f, st.inert_cr);
    free(out);
    return 0;
}
