/* datagen: size tables and parsing, deterministic inputs, dataset generation that never loses
 * a file (the dataset checker: test_dataset_check.c). */
#include <criterion/criterion.h>

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datagen.h"
#include "datagen_fixtures.h"

/* ---- helpers --------------------------------------------------------------------------------- */

static char *file_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)size + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *len = (size_t)size;
    return buf;
}

static bool same_file(const char *a, const char *b)
{
    size_t la, lb;
    char *x = file_bytes(a, &la), *y = file_bytes(b, &lb);
    const bool same = la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static const char *const files[3] = {"input0.raw", "input1.raw", "output.raw"};

/* ---- sizes ----------------------------------------------------------------------------------- */

Test(sizes, parse_good_forms)
{
    tl_size s;
    tl_error err = {""};
    cr_assert_eq(tl_size_parse("64x128x32", &s, &err), 0, "%s", err.msg);
    cr_assert(s.m == 64 && s.k == 128 && s.n == 32);
    cr_assert_eq(tl_size_parse("100", &s, &err), 0, "%s", err.msg);
    cr_assert(s.m == 100 && s.k == 100 && s.n == 100);
    cr_assert_eq(tl_size_parse("1x1x1", &s, &err), 0, "%s", err.msg);
    cr_assert(s.m == 1 && s.k == 1 && s.n == 1);
    cr_assert_eq(tl_size_parse("7X9X3", &s, &err), 0, "%s", err.msg);
    cr_assert(s.m == 7 && s.k == 9 && s.n == 3);
    /* Exactly TL_MAX_ELEMENTS in the largest matrix, and the largest dimension. */
    cr_assert_eq(tl_size_parse("16384x16384x1", &s, &err), 0, "%s", err.msg);
    cr_assert_eq(tl_size_parse("1x65536x1", &s, &err), 0, "%s", err.msg);
    cr_assert(s.m == 1 && s.k == 65536 && s.n == 1);
}

Test(sizes, parse_rejects_bad_forms)
{
    const char *bad[] = {
        "", "abc", "0", "0x4x4", "4x0x4", "4x4x0", "-5", "4x-4x4", "+4", " 64", "64 ",
        "64x", "x64", "64x32", "64x32x16x8", "4x4x4junk", "4xx4", "65537", "1x65537x1",
        "99999999999999999999", "16384x16385x1", "1x16385x16384", "32768x1x32768", "1.5",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tl_size s = {-7, -7, -7};
        tl_error err = {""};
        cr_assert_eq(tl_size_parse(bad[i], &s, &err), -1, "'%s' was accepted", bad[i]);
        cr_assert_gt(strlen(err.msg), 0, "no message for '%s'", bad[i]);
        cr_assert_null(strchr(err.msg, '\n'), "message for '%s' is not one line", bad[i]);
        cr_assert_not_null(strstr(err.msg, bad[i]), "message '%s' does not quote '%s'", err.msg,
                           bad[i]);
        cr_assert(s.m == -7 && s.k == -7 && s.n == -7, "'%s' changed the output", bad[i]);
    }
}

Test(sizes, large_means_any_dimension_at_least_1024)
{
    cr_assert(!tl_size_is_large((tl_size){1023, 1023, 1023}));
    cr_assert(tl_size_is_large((tl_size){1024, 1, 1}));
    cr_assert(tl_size_is_large((tl_size){1, 1024, 1}));
    cr_assert(tl_size_is_large((tl_size){1, 1, 2048}));
}

/* ---- labs ------------------------------------------------------------------------------------ */

Test(labs, found_by_id_number_and_name)
{
    int count = 0;
    const tl_lab *all = tl_labs(&count);
    cr_assert_eq(count, 6);
    cr_assert_eq(tl_lab_find("02-tiled"), &all[1]);
    cr_assert_eq(tl_lab_find("02"), &all[1]);
    cr_assert_eq(tl_lab_find("2"), &all[1]);
    cr_assert_eq(tl_lab_find("tiled"), &all[1]);
    cr_assert_eq(tl_lab_find("TILED"), &all[1]);
    cr_assert_eq(tl_lab_find("01-basic"), &all[0]);
    cr_assert_eq(tl_lab_find("arbitrary"), &all[2]);
    cr_assert_eq(tl_lab_find("4"), &all[3]);
    cr_assert_eq(tl_lab_find("bank-conflicts"), &all[4]);
    cr_assert_eq(tl_lab_find("05"), &all[4]);
    cr_assert_eq(tl_lab_find("6"), &all[5]);
    cr_assert_eq(tl_lab_find("challenge"), &all[5]);
    const char *unknown[] = {"", "0", "00", "7", "07", "tile", "02-tile", "2x", "basic-01", "-1"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        cr_assert_null(tl_lab_find(unknown[i]), "'%s' found a lab", unknown[i]);
    cr_assert_null(tl_lab_find(NULL));
}

static bool is_prime(int v)
{
    if (v < 2)
        return false;
    for (int d = 2; d * d <= v; d++)
        if (v % d == 0)
            return false;
    return true;
}

Test(labs, every_table_is_valid_and_ordered)
{
    int count = 0;
    const tl_lab *all = tl_labs(&count);
    const char *ids[] = {"01-basic", "02-tiled", "03-arbitrary", "04-rectangular",
                         "05-bank-conflicts", "06-challenge"};
    for (int l = 0; l < count; l++) {
        const tl_lab *lab = &all[l];
        cr_assert_str_eq(lab->id, ids[l]);
        cr_assert(lab->summary && strlen(lab->summary) > 10 && !strchr(lab->summary, '\n'));
        cr_assert_gt(lab->nsizes, 0);
        int small = 0, large = 0;
        for (int i = 0; i < lab->nsizes; i++) {
            const tl_size s = lab->sizes[i];
            char text[64];
            snprintf(text, sizeof text, "%dx%dx%d", s.m, s.k, s.n);
            tl_size back;
            tl_error err = {""};
            cr_assert_eq(tl_size_parse(text, &back, &err), 0, "%s %s: %s", lab->id, text,
                         err.msg);
            if (tl_size_is_large(s))
                large++;
            else
                cr_assert_eq(large, 0, "%s: small size %s after a large one", lab->id, text);
            small += !tl_size_is_large(s);
            if (lab->square)
                cr_assert(s.m == s.k && s.k == s.n, "%s is square but has %s", lab->id, text);
            for (int j = 0; j < i; j++)
                cr_assert(memcmp(&lab->sizes[j], &s, sizeof s) != 0, "%s: %s twice", lab->id,
                          text);
        }
        cr_assert_gt(small, 0, "%s has no small size", lab->id);
        cr_assert_gt(large, 0, "%s has no large size", lab->id);
        cr_assert(!lab->square || (lab->perf.m == lab->perf.k && lab->perf.k == lab->perf.n));
        cr_assert_geq(lab->perf.m, 1024, "%s: a performance size this small times nothing", lab->id);
    }
    cr_assert(all[0].square && all[2].square && !all[3].square && !all[5].square);
}

/* Lab 06 is timed at the size its reference is measured at, and checked where its reference's
 * tiles (128 x 256 of P, phases of 8) do not divide the shape, small and large. */
Test(labs, challenge_sizes_cover_edges_and_speed)
{
    const tl_lab *lab = tl_lab_find("06");
    cr_assert_not_null(lab);
    cr_assert_eq(lab->perf.m, 4096);
    bool perf_listed = false, odd_small = false, odd_large = false, whole = false;
    for (int i = 0; i < lab->nsizes; i++) {
        tl_size s = lab->sizes[i];
        perf_listed |= memcmp(&s, &lab->perf, sizeof s) == 0;
        bool odd = s.m % 2 && s.k % 2 && s.n % 2 && s.m > 128 && s.n > 256 && s.k > 8;
        odd_small |= odd && !tl_size_is_large(s);
        odd_large |= odd && tl_size_is_large(s);
        whole |= s.m % 128 == 0 && s.n % 256 == 0 && s.k % 8 == 0 && !tl_size_is_large(s);
    }
    cr_assert(perf_listed && odd_small && odd_large && whole);
}

Test(labs, square_labs_fit_their_kernels)
{
    const tl_lab *tiled = tl_lab_find("tiled");
    for (int i = 0; i < tiled->nsizes; i++) {
        const tl_size s = tiled->sizes[i];
        cr_assert(s.m == s.k && s.k == s.n);
        cr_assert_eq(s.m % 32, 0, "02-tiled width %d is not a multiple of 32", s.m);
    }
    const tl_lab *arb = tl_lab_find("arbitrary");
    bool has_one = false, has_prime = false, has_non16 = false;
    for (int i = 0; i < arb->nsizes; i++) {
        const tl_size s = arb->sizes[i];
        cr_assert(s.m == s.k && s.k == s.n);
        if (tl_size_is_large(s))
            continue;
        has_one |= s.m == 1;
        has_prime |= is_prime(s.m) && s.m > 16;
        has_non16 |= s.m % 16 != 0;
    }
    cr_assert(has_one && has_prime && has_non16);
}

Test(labs, rectangular_lab_has_the_kits_nine_sizes)
{
    const tl_size nine[] = {{16, 16, 16},  {64, 64, 64},  {64, 128, 64},
                            {112, 48, 16}, {84, 84, 84},  {80, 99, 128},
                            {67, 53, 64},  {29, 117, 85}, {191, 19, 241}};
    const tl_lab *rect = tl_lab_find("04");
    for (size_t t = 0; t < 9; t++) {
        bool found = false;
        for (int i = 0; i < rect->nsizes; i++)
            found |= memcmp(&rect->sizes[i], &nine[t], sizeof nine[t]) == 0;
        cr_assert(found, "%dx%dx%d missing", nine[t].m, nine[t].k, nine[t].n);
    }
    bool k1 = false, one_row = false, one_col = false;
    for (int i = 0; i < rect->nsizes; i++) {
        k1 |= rect->sizes[i].k == 1 && rect->sizes[i].m > 1;
        one_row |= rect->sizes[i].m == 1 && rect->sizes[i].n > 1;
        one_col |= rect->sizes[i].n == 1 && rect->sizes[i].m > 1;
    }
    cr_assert(k1 && one_row && one_col);
}

/* ---- inputs ---------------------------------------------------------------------------------- */

static void fill(uint64_t seed, int index, tl_size s, tl_matrix *A, tl_matrix *B)
{
    tl_error err;
    cr_assert_eq(tl_matrix_alloc(A, s.m, s.k, &err), 0);
    cr_assert_eq(tl_matrix_alloc(B, s.k, s.n, &err), 0);
    tl_fill_inputs(seed, index, s, A, B);
}

Test(inputs, values_are_multiples_of_2_pow_minus_23_in_minus_one_one)
{
    tl_matrix A, B;
    const tl_size s = {61, 127, 33};
    fill(1, 0, s, &A, &B);
    int neg = 0, pos = 0;
    double sum = 0.0;
    const tl_matrix *both[2] = {&A, &B};
    for (int w = 0; w < 2; w++) {
        const size_t count = (size_t)both[w]->rows * both[w]->cols;
        for (size_t i = 0; i < count; i++) {
            const float v = both[w]->data[i];
            cr_assert(v >= -1.0f && v < 1.0f, "value %a out of range", v);
            const double scaled = (double)v * 0x1p23;
            cr_assert_eq(scaled, floor(scaled), "value %a is not a multiple of 2^-23", v);
            neg += v < 0;
            pos += v > 0;
            sum += v;
        }
    }
    const double total = (double)s.m * s.k + (double)s.k * s.n;
    cr_assert(neg > total * 0.4 && pos > total * 0.4, "neg %d pos %d", neg, pos);
    cr_assert_lt(fabs(sum / total), 0.05);
    tl_matrix_free(&A);
    tl_matrix_free(&B);
}

Test(inputs, same_triple_same_values_any_change_new_values)
{
    const tl_size s = {20, 30, 40};
    tl_matrix A1, B1, A2, B2;
    fill(7, 3, s, &A1, &B1);
    fill(7, 3, s, &A2, &B2);
    cr_assert(memcmp(A1.data, A2.data, sizeof(float) * 600) == 0);
    cr_assert(memcmp(B1.data, B2.data, sizeof(float) * 1200) == 0);
    /* B continues A's stream, so B is not A's values again. */
    cr_assert(memcmp(A1.data, B1.data, sizeof(float) * 600) != 0);
    tl_matrix_free(&A2);
    tl_matrix_free(&B2);
    fill(8, 3, s, &A2, &B2);
    cr_assert(memcmp(A1.data, A2.data, sizeof(float) * 600) != 0, "seed ignored");
    tl_matrix_free(&A2);
    tl_matrix_free(&B2);
    fill(7, 4, s, &A2, &B2);
    cr_assert(memcmp(A1.data, A2.data, sizeof(float) * 600) != 0, "index ignored");
    tl_matrix_free(&A2);
    tl_matrix_free(&B2);
    fill(7, 3, (tl_size){20, 30, 41}, &A2, &B2);
    cr_assert(memcmp(A1.data, A2.data, sizeof(float) * 600) != 0, "size ignored");
    tl_matrix_free(&A1);
    tl_matrix_free(&B1);
    tl_matrix_free(&A2);
    tl_matrix_free(&B2);
}

/* ---- generation ------------------------------------------------------------------------------ */

Test(generate, deterministic_across_runs_and_folders)
{
    char d1[512], d2[512], d3[512];
    make_temp_dir(d1, sizeof d1);
    make_temp_dir(d2, sizeof d2);
    make_temp_dir(d3, sizeof d3);
    const tl_size s = {17, 33, 15};
    for (int f = 0; f < 2; f++) {
        const tl_gen_options o = options(2024, (tl_format)f);
        const tl_gen_options other = options(2025, (tl_format)f);
        char sub1[600], sub2[600], sub3[600];
        snprintf(sub1, sizeof sub1, "%s/f%d", d1, f);
        snprintf(sub2, sizeof sub2, "%s/f%d", d2, f);
        snprintf(sub3, sizeof sub3, "%s/f%d", d3, f);
        generate_ok(sub1, 3, s, &o, TL_WRITE_CREATED);
        generate_ok(sub2, 3, s, &o, TL_WRITE_CREATED);
        generate_ok(sub3, 3, s, &other, TL_WRITE_CREATED);
        for (int i = 0; i < 3; i++) {
            char p1[700], p2[700], p3[700];
            path_in(p1, sizeof p1, sub1, files[i]);
            path_in(p2, sizeof p2, sub2, files[i]);
            path_in(p3, sizeof p3, sub3, files[i]);
            cr_assert(same_file(p1, p2), "%s differs between two runs", files[i]);
            cr_assert(!same_file(p1, p3), "%s does not depend on the seed", files[i]);
        }
        cr_assert_eq(count_entries(sub1), 3, "leftover temporary files");
    }
    remove_tree(d1);
    remove_tree(d2);
    remove_tree(d3);
}

/* The files hold what they should: the filled inputs and fl(A*B) from the double product. */
Test(generate, files_hold_inputs_and_rounded_product)
{
    char dir[512], sub[600];
    make_temp_dir(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/a/b/3/", dir); /* parents created; trailing slash accepted */
    const tl_size s = {9, 70, 11};
    const tl_gen_options o = options(5, TL_FORMAT_BINARY);
    generate_ok(sub, 3, s, &o, TL_WRITE_CREATED);

    tl_matrix A, B, got[3];
    fill(5, 3, s, &A, &B);
    for (int i = 0; i < 3; i++) {
        char p[700];
        tl_error err;
        snprintf(p, sizeof p, "%s%s", sub, files[i]);
        cr_assert_eq(tl_matrix_read(p, &got[i], &err), 0, "%s", err.msg);
    }
    cr_assert(got[0].rows == 9 && got[0].cols == 70 && got[1].rows == 70 && got[1].cols == 11);
    cr_assert(got[2].rows == 9 && got[2].cols == 11);
    cr_assert(memcmp(got[0].data, A.data, sizeof(float) * 9 * 70) == 0);
    cr_assert(memcmp(got[1].data, B.data, sizeof(float) * 70 * 11) == 0);
    double C[9 * 11];
    tl_gemm_f64(9, 70, 11, A.data, B.data, C, NULL, 1);
    for (int i = 0; i < 9 * 11; i++)
        cr_assert_eq(got[2].data[i], (float)C[i], "element %d", i);
    for (int i = 0; i < 3; i++)
        tl_matrix_free(&got[i]);
    tl_matrix_free(&A);
    tl_matrix_free(&B);
    remove_tree(dir);
}

Test(generate, nothing_lost)
{
    char dir[512], out[700];
    make_temp_dir(dir, sizeof dir);
    path_in(out, sizeof out, dir, "output.raw");
    const tl_size s = {12, 5, 8};
    const tl_gen_options o = options(11, TL_FORMAT_TEXT);
    generate_ok(dir, 0, s, &o, TL_WRITE_CREATED);
    generate_ok(dir, 0, s, &o, TL_WRITE_UNCHANGED);

    size_t len;
    char *original = file_bytes(out, &len);
    FILE *f = fopen(out, "ab");
    cr_assert_not_null(f);
    fputs("0\n", f);
    fclose(f);
    size_t edited_len;
    char *edited = file_bytes(out, &edited_len);

    tl_gen_result res;
    tl_error err = {""};
    cr_assert_eq(tl_dataset_generate(dir, 0, s, &o, &res, &err), -1);
    cr_assert_not_null(strstr(err.msg, out), "message does not name the file: %s", err.msg);
    cr_assert_not_null(strstr(err.msg, "--force"), "%s", err.msg);
    size_t now_len;
    char *now = file_bytes(out, &now_len);
    cr_assert(now_len == edited_len && memcmp(now, edited, now_len) == 0, "file was touched");
    free(now);
    cr_assert_eq(count_entries(dir), 3, "leftover temporary files after a refusal");

    /* A different seed would change every file: refused as well, and nothing changes. */
    char in0[700];
    path_in(in0, sizeof in0, dir, "input0.raw");
    size_t in0_len;
    char *in0_before = file_bytes(in0, &in0_len);
    const tl_gen_options reseeded = options(12, TL_FORMAT_TEXT);
    cr_assert_eq(tl_dataset_generate(dir, 0, s, &reseeded, &res, &err), -1);
    size_t in0_after_len;
    char *in0_after = file_bytes(in0, &in0_after_len);
    cr_assert(in0_len == in0_after_len && memcmp(in0_before, in0_after, in0_len) == 0);

    tl_gen_options forced = o;
    forced.force = true;
    generate_ok(dir, 0, s, &forced, TL_WRITE_REPLACED);
    now = file_bytes(out, &now_len);
    cr_assert(now_len == len && memcmp(now, original, len) == 0, "not restored");
    generate_ok(dir, 0, s, &o, TL_WRITE_UNCHANGED);
    cr_assert_eq(count_entries(dir), 3);
    free(original);
    free(edited);
    free(now);
    free(in0_before);
    free(in0_after);
    remove_tree(dir);
}

/* One missing file among unchanged ones: created, and it is the one reported. */
Test(generate, recreates_a_missing_file)
{
    char dir[512], in1[700];
    make_temp_dir(dir, sizeof dir);
    path_in(in1, sizeof in1, dir, "input1.raw");
    const tl_size s = {3, 4, 5};
    const tl_gen_options o = options(1, TL_FORMAT_BINARY);
    generate_ok(dir, 2, s, &o, TL_WRITE_CREATED);
    size_t len;
    char *before = file_bytes(in1, &len);
    cr_assert_eq(unlink(in1), 0);
    generate_ok(dir, 2, s, &o, TL_WRITE_CREATED);
    size_t len2;
    char *after = file_bytes(in1, &len2);
    cr_assert(len == len2 && memcmp(before, after, len) == 0);
    free(before);
    free(after);
    remove_tree(dir);
}

/* ---- checking -------------------------------------------------------------------------------- */

/* Hidden datasets are for their owner's eyes: folder 0700, files 0600, whatever the umask. */
Test(generate, private_datasets_are_owner_only)
{
    char dir[] = "/tmp/tilelab-private-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char sub[sizeof dir + 32];
    snprintf(sub, sizeof sub, "%s/seed-7/0", dir);
    tl_gen_options o = options(7, TL_FORMAT_TEXT);
    o.private_files = true;
    mode_t old = umask(022);
    generate_ok(sub, 0, (tl_size){4, 5, 6}, &o, TL_WRITE_CREATED);
    umask(old);
    struct stat st;
    cr_assert_eq(stat(sub, &st), 0);
    cr_expect_eq(st.st_mode & 0777, 0700, "folder mode %o", st.st_mode & 0777);
    const char *names[] = {"input0.raw", "input1.raw", "output.raw"};
    for (int i = 0; i < 3; i++) {
        char path[sizeof sub + 16];
        snprintf(path, sizeof path, "%s/%s", sub, names[i]);
        cr_assert_eq(stat(path, &st), 0);
        cr_expect_eq(st.st_mode & 0777, 0600, "%s mode %o", names[i], st.st_mode & 0777);
    }
    char cmd[sizeof dir + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
