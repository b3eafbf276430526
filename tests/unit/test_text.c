/* Untrusted text made inert: terminal escape sequences, invalid UTF-8, NUL bytes, bidirectional
 * overrides and spreadsheet formulas come out harmless; ordinary text comes out unchanged. */
#include "harness.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/* A strict UTF-8 check written independently of the code under test (RFC 3629: no overlongs,
 * no surrogates, nothing above U+10FFFF), so the two cannot share a mistake. */
static bool valid_utf8(const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < len;) {
        unsigned c = s[i];
        size_t need;
        unsigned lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            need = 1;
        } else if (c >= 0xe0 && c <= 0xef) {
            need = 2;
            lo = c == 0xe0 ? 0xa0 : 0x80;
            hi = c == 0xed ? 0x9f : 0xbf;
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3;
            lo = c == 0xf0 ? 0x90 : 0x80;
            hi = c == 0xf4 ? 0x8f : 0xbf;
        } else {
            return false;
        }
        if (i + need >= len)
            return false;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return false;
        for (size_t k = 2; k <= need; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
        i += need + 1;
    }
    return true;
}

/* Each function on bytes given with their length (NUL bytes allowed). */
typedef char *(*inert_fn)(const char *, size_t);
static const inert_fn every_fn[] = {tl_text_utf8, tl_text_terminal, tl_text_line,
                                    tl_text_csv_cell};
static const char *const every_name[] = {"utf8", "terminal", "line", "csv_cell"};

static void expect(inert_fn fn, const char *in, size_t len, const char *want)
{
    char *got = fn(in, len);
    cr_assert_not_null(got);
    cr_assert_str_eq(got, want);
    free(got);
}

#define EXPECT(fn, literal, want) expect(fn, literal, sizeof(literal) - 1, want)

Test(text, validator_agrees_with_known_cases)
{
    /* The check the other tests rely on must itself tell good from bad. */
    cr_assert(valid_utf8("a\xc3\xa9\xe6\x9d\xb1\xf0\x9f\x9a\x80", 10));
    cr_assert_not(valid_utf8("\xc0\xaf", 2));
    cr_assert_not(valid_utf8("\xed\xa0\x80", 3));
    cr_assert_not(valid_utf8("\xf4\x90\x80\x80", 4));
    cr_assert_not(valid_utf8("\xe2\x82", 2));
    cr_assert_not(valid_utf8("\x80", 1));
}

Test(text, terminal_shows_escape_sequences_instead_of_running_them)
{
    /* Clear screen, then an OSC 8 hyperlink ended by BEL. */
    EXPECT(tl_text_terminal, "\x1b[2J\x1b]8;;http://x\x07", "\\x1b[2J\\x1b]8;;http://x\\x07");
    EXPECT(tl_text_terminal, "bell\a back\b del\x7f", "bell\\x07 back\\x08 del\\x7f");
    /* C1 controls as code points (CSI is U+009B, UTF-8 C2 9B) act like ESC [ on some terminals. */
    EXPECT(tl_text_terminal, "\xc2\x9b" "31m", "\\x9b31m");
    EXPECT(tl_text_terminal, "\xc2\x85", "\\x85");
}

Test(text, terminal_shows_carriage_returns_so_nothing_is_overwritten)
{
    EXPECT(tl_text_terminal, "FAIL: wrong\rPASS: all right", "FAIL: wrong\\rPASS: all right");
    EXPECT(tl_text_terminal, "line 1\r\nline 2", "line 1\\r\nline 2");
}

Test(text, terminal_keeps_newlines_and_tabs_and_line_escapes_them)
{
    EXPECT(tl_text_terminal, "a\tb\nc", "a\tb\nc");
    EXPECT(tl_text_line, "a\tb\nc", "a\\tb\\nc");
    EXPECT(tl_text_line, "id\x1b[31m\r", "id\\x1b[31m\\r");
}

Test(text, bidirectional_overrides_and_isolates_are_shown)
{
    /* "txt.exe" written right to left would look like "exe.txt". */
    EXPECT(tl_text_terminal, "a\xe2\x80\xae" "exe.txt", "a\\u202eexe.txt");
    EXPECT(tl_text_terminal, "\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9", "\\u202a\\u2066\\u2069");
    EXPECT(tl_text_line, "\xe2\x80\xad", "\\u202d");
    /* tl_text_utf8 only repairs the encoding: these are valid characters and stay. */
    EXPECT(tl_text_utf8, "a\xe2\x80\xae" "b", "a\xe2\x80\xae" "b");
}

Test(text, invalid_utf8_becomes_replacement_characters)
{
    static const struct {
        const char *in;
        size_t len;
        const char *forbidden; /* what a lax decoder would have produced */
    } cases[] = {
        {"a\x80z", 3, "\x80"},                  /* a lone continuation byte */
        {"a\xe2\x82z", 4, "\xe2"},              /* a sequence cut short */
        {"a\xe2\x82", 3, "\xe2"},               /* ... at the very end */
        {"a\xc0\xafz", 4, "/"},                 /* an overlong '/' */
        {"a\xe0\x80\xafz", 5, "/"},             /* a 3-byte overlong '/' */
        {"a\xed\xa0\x80z", 5, "\xed"},          /* a UTF-16 surrogate */
        {"a\xf4\x90\x80\x80z", 6, "\xf4"},      /* U+110000, past the last code point */
        {"a\xf8\x88\x80\x80\x80z", 7, "\xf8"},  /* an old 5-byte form */
        {"a\xffz\xfe", 4, "\xff"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (size_t f = 0; f < sizeof every_fn / sizeof every_fn[0]; f++) {
            char *got = every_fn[f](cases[c].in, cases[c].len);
            cr_assert_not_null(got);
            cr_assert(valid_utf8(got, strlen(got)), "case %zu, %s: invalid output", c,
                      every_name[f]);
            cr_assert_not_null(strstr(got, REPLACEMENT), "case %zu, %s: no U+FFFD", c,
                               every_name[f]);
            cr_assert_null(strstr(got, cases[c].forbidden), "case %zu, %s", c, every_name[f]);
            cr_assert_eq(got[0], 'a', "case %zu, %s: the text before was lost", c, every_name[f]);
            free(got);
        }
    }
    /* One replacement per bad byte of a stray run, the text after it kept. */
    EXPECT(tl_text_utf8, "\x80\x80ok", REPLACEMENT REPLACEMENT "ok");
    EXPECT(tl_text_utf8, "\xc0\xaf", REPLACEMENT REPLACEMENT);
}

Test(text, nul_bytes_become_replacement_characters_and_do_not_end_the_text)
{
    static const char in[] = "ab\0cd\0";
    for (size_t f = 0; f < sizeof every_fn / sizeof every_fn[0]; f++) {
        char *got = every_fn[f](in, sizeof in - 1);
        cr_assert_not_null(got);
        cr_assert_str_eq(got, "ab" REPLACEMENT "cd" REPLACEMENT, "%s", every_name[f]);
        free(got);
    }
    char *empty = tl_text_terminal(NULL, 0);
    cr_assert_not_null(empty);
    cr_assert_str_eq(empty, "");
    free(empty);
}

Test(text, csv_cell_quotes_what_a_spreadsheet_would_run)
{
    EXPECT(tl_text_csv_cell, "=HYPERLINK(\"http://x\",\"y\")", "'=HYPERLINK(\"http://x\",\"y\")");
    EXPECT(tl_text_csv_cell, "+1", "'+1");
    EXPECT(tl_text_csv_cell, "-2", "'-2");
    EXPECT(tl_text_csv_cell, "@SUM(A1:A9)", "'@SUM(A1:A9)");
    EXPECT(tl_text_csv_cell, "=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0");
    /* A leading tab or carriage return is escaped and still marks a formula attempt. */
    EXPECT(tl_text_csv_cell, "\t=1+1", "'\\t=1+1");
    EXPECT(tl_text_csv_cell, "\r=1+1", "'\\r=1+1");
    /* The cell is one line, with nothing a terminal or a viewer would act on. */
    EXPECT(tl_text_csv_cell, "a\nb\x1b[2J", "a\\nb\\x1b[2J");
    /* Only the start counts, and CSV quoting is left to the writer. */
    EXPECT(tl_text_csv_cell, "a=1, \"b\"", "a=1, \"b\"");
    EXPECT(tl_text_csv_cell, "", "");
}

Test(text, plain_text_is_unchanged_byte_for_byte)
{
    char ascii[96];
    size_t n = 0;
    for (int c = 0x20; c < 0x7f; c++)
        ascii[n++] = (char)c;
    ascii[n] = '\0';
    static const char unicode[] = "na\xc3\xafve caf\xc3\xa9, \xe6\x9d\xb1\xe4\xba\xac \xf0\x9f\x9a\x80"
                                  " \xe2\x80\x94 \xce\xbb";
    const char *plain[] = {ascii, unicode, "alice_01.b-2", "template.cu(12): error: x"};
    for (size_t p = 0; p < sizeof plain / sizeof plain[0]; p++) {
        for (size_t f = 0; f < sizeof every_fn / sizeof every_fn[0]; f++) {
            char *got = every_fn[f](plain[p], strlen(plain[p]));
            cr_assert_not_null(got);
            cr_assert_str_eq(got, plain[p], "%s changed text %zu", every_name[f], p);
            free(got);
        }
    }
}

Test(text, a_megabyte_of_any_bytes_comes_out_valid_and_inert)
{
    size_t len = 1 << 20;
    char *in = malloc(len);
    cr_assert_not_null(in);
    unsigned x = 12345;
    for (size_t i = 0; i < len; i++) {
        x = x * 1103515245u + 12345u;
        in[i] = (char)(x >> 16);
    }
    for (size_t f = 0; f < sizeof every_fn / sizeof every_fn[0]; f++) {
        char *got = every_fn[f](in, len);
        cr_assert_not_null(got, "%s", every_name[f]);
        size_t n = strlen(got);
        cr_assert_geq(n, len / 2, "%s lost text", every_name[f]);
        cr_assert(valid_utf8(got, n), "%s", every_name[f]);
        if (every_fn[f] != tl_text_utf8) {
            cr_assert_null(memchr(got, 0x1b, n), "%s kept an ESC byte", every_name[f]);
            cr_assert_null(memchr(got, '\r', n), "%s kept a carriage return", every_name[f]);
        }
        free(got);
    }
    /* A megabyte of plain text is returned whole. */
    memset(in, 'x', len);
    char *got = tl_text_line(in, len);
    cr_assert_not_null(got);
    cr_assert_eq(strlen(got), len);
    cr_assert_eq(memcmp(got, in, len), 0);
    free(got);
    free(in);
}

/* The one HTML escaper of the class report, the leaderboard and run's map page. */
Test(text, html_write_escapes_every_markup_character)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    tl_html_write(f, "<img src=x onerror='a(\"&\")'>");
    tl_html_write(f, NULL);
    fclose(f);
    cr_assert_str_eq(buf, "&lt;img src=x onerror=&#39;a(&quot;&amp;&quot;)&#39;&gt;");
    free(buf);
}
