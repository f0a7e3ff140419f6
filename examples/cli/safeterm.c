/* A program's output on the operator's terminal (red team A2). The bytes
 * of a hostile program would reach the terminal as commands: OSC 52 sets
 * the clipboard (a paste then runs what the program chose), OSC 0 the
 * window title, a screen clear or cursor move hides or rewrites what came
 * before, the CLI's own verdict lines included. On a terminal (unless
 * --raw-output) output goes through this filter: text, tab, newline and
 * carriage return pass (not a carriage return with inert_cr: a batch's
 * line, whose prefix it would move back over), and so does colour (SGR:
 * ESC [ params m); every other control is shown inert, ESC as ^[, BEL as
 * ^G, a C1 control as its ESC form (CSI as ^[[): U+0080 to U+009F in
 * UTF-8 (C2 80..C2 9F) and a raw byte 0x80..0x9F that is not part of a
 * UTF-8 character (a terminal not in UTF-8 mode acts on it). A character
 * is held until it is whole and well-formed, so a cut or overlong one
 * cannot carry such a byte. Pipes and files get the program's bytes as
 * they came. */
#include <string.h>

#include "cli.h"

enum { TEXT, SAW_ESC, IN_CSI, SAW_C2 };

static size_t put(char *out, size_t o, const char *s, size_t n)
{
    memcpy(out + o, s, n);
    return o + n;
}

/* c shown inert: ^@..^_ for C0, ^? for DEL */
static size_t caret(char *out, size_t o, unsigned char c)
{
    out[o++] = '^';
    out[o++] = c == 0x7f ? '?' : (char)(c + 0x40);
    return o;
}

/* C1 control c (0x80..0x9f) in its ESC form */
static size_t c1(char *out, size_t o, unsigned char c)
{
    out[o++] = '^';
    out[o++] = '[';
    out[o++] = (char)(c - 0x40);
    return o;
}

/* What a sequence started so far becomes when it is not colour. */
static size_t spill(safeterm *st, char *out, size_t o)
{
    if (st->state == SAW_ESC)
        o = put(out, o, "^[", 2);
    if (st->state == IN_CSI) {
        o = put(out, o, "^[[", 3);
        o = put(out, o, st->seq, st->n);
    }
    if (st->state == SAW_C2)
        out[o++] = (char)0xc2;
    st->state = TEXT;
    st->n = 0;
    return o;
}

/* The bytes of an unfinished character, which turned out not to be one:
 * a continuation byte 0x80..0x9F among them is a C1 control to a
 * terminal not in UTF-8 mode. */
static size_t drop_held(safeterm *st, char *out, size_t o)
{
    for (int i = 0; i < st->held; i++) {
        unsigned char b = st->u8[i];
        if (b >= 0x80 && b <= 0x9f)
            o = c1(out, o, b);
        else
            out[o++] = (char)b;
    }
    st->held = st->need = 0;
    return o;
}

/* A lead byte C3..F4 starts a character held until it is whole; lo..hi
 * is what its next byte may be in well-formed UTF-8 (no overlong form,
 * surrogate or code point past U+10FFFF). */
static void hold_lead(safeterm *st, unsigned char c)
{
    st->u8[0] = c;
    st->held = 1;
    st->need = 1 + (c >= 0xe0) + (c >= 0xf0);
    st->lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
    st->hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
}

/* A byte of text: a whole well-formed character passes as it is */
static size_t text_byte(safeterm *st, char *out, size_t o, unsigned char c)
{
    if (st->need > 0 && c >= st->lo && c <= st->hi) {
        st->u8[st->held++] = c;
        st->lo = 0x80;
        st->hi = 0xbf;
        if (--st->need == 0) {
            o = put(out, o, (const char *)st->u8, (size_t)st->held);
            st->held = 0;
        }
        return o;
    }
    o = drop_held(st, out, o);
    if (c >= 0xc3 && c <= 0xf4)
        hold_lead(st, c);
    else if (c == 0x1b)
        st->state = SAW_ESC;
    else if (c == 0xc2)
        st->state = SAW_C2;
    else if (c >= 0x80 && c <= 0x9f)
        o = c1(out, o, c);
    else if ((c < 0x20 && c != '\t' && c != '\n' &&
              (c != '\r' || st->inert_cr)) || c == 0x7f)
        o = caret(out, o, c);
    else
        out[o++] = (char)c;
    return o;
}

/* One byte in the current state; the output grows by at most 3 bytes
 * per byte, plus a spilled sequence (SAFETERM_OUT). */
static size_t one(safeterm *st, char *out, size_t o, unsigned char c)
{
    switch (st->state) {
    case SAW_ESC:
        if (c == '[') {
            st->state = IN_CSI;
            return o;
        }
        return text_byte(st, out, spill(st, out, o), c);
    case SAW_C2:
        if (c >= 0x80 && c <= 0x9f) {
            st->state = TEXT;
            return c1(out, o, c);
        }
        return text_byte(st, out, spill(st, out, o), c);
    case IN_CSI:
        if ((c >= '0' && c <= '9') || c == ';' || c == ':') {
            if (st->n < sizeof st->seq) {
                st->seq[st->n++] = (char)c;
                return o;
            }
        } else if (c == 'm') { /* colour: passes as it is */
            o = put(out, o, "\033[", 2);
            o = put(out, o, st->seq, st->n);
            out[o++] = 'm';
            st->state = TEXT;
            st->n = 0;
            return o;
        }
        return text_byte(st, out, spill(st, out, o), c);
    default:
        return text_byte(st, out, o, c);
    }
}

size_t safeterm_filter(safeterm *st, const char *in, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        o = one(st, out, o, (unsigned char)in[i]);
    return o;
}

size_t safeterm_flush(safeterm *st, char *out)
{
    return drop_held(st, out, spill(st, out, 0));
}
