/* The result check: the fp32 error bound accepts every correct summation order and rejects the
 * classic kernel bugs; libwb's 0.2 absolute tolerance gets both wrong. */
#include "harness.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Small deterministic generator for test data (xorshift64*). */
static uint64_t rng_state;
static void rng_seed(uint64_t s) { rng_state = s * 2654435761u + 1; }
static double rng_unit(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) * 0x1p-53;
}

static tl_matrix make(int rows, int cols)
{
    tl_matrix m;
    tl_error err;
    cr_assert_eq(tl_matrix_alloc(&m, rows, cols, &err), 0, "%s", err.msg);
    return m;
}

static tl_matrix random_matrix(int rows, int cols, double lo, double hi)
{
    tl_matrix m = make(rows, cols);
    for (int i = 0; i < rows * cols; i++)
        m.data[i] = (float)(lo + (hi - lo) * rng_unit());
    return m;
}

/* The expected file's content: the exact product rounded once to float. */
static tl_matrix expected_of(const tl_matrix *A, const tl_matrix *B)
{
    tl_matrix C = make(A->rows, B->cols);
    double *exact = malloc(sizeof(double) * (size_t)A->rows * (size_t)B->cols);
    tl_gemm_f64(A->rows, A->cols, B->cols, A->data, B->data, exact, NULL, 1);
    for (int i = 0; i < A->rows * B->cols; i++)
        C.data[i] = (float)exact[i];
    free(exact);
    return C;
}

typedef enum order { FORWARD, BACKWARD, PAIRWISE, TILED16, TILED32, FMA_FORWARD, STRIDED4 } order;

static float pairwise(const float *terms, int n)
{
    if (n == 1)
        return terms[0];
    int h = n / 2;
    return pairwise(terms, h) + pairwise(terms + h, n - h);
}

/* One fp32 dot product in a given summation order, as some correct kernel would compute it. */
static float dot(const tl_matrix *A, const tl_matrix *B, int i, int j, order o)
{
    int k = A->cols;
    float terms[1024];
    for (int p = 0; p < k; p++)
        terms[p] = A->data[i * k + p] * B->data[p * B->cols + j];
    float s = 0;
    switch (o) {
    case FORWARD:
        for (int p = 0; p < k; p++) s += terms[p];
        return s;
    case BACKWARD:
        for (int p = k - 1; p >= 0; p--) s += terms[p];
        return s;
    case PAIRWISE: return pairwise(terms, k);
    case TILED16:
    case TILED32: {
        int t = o == TILED16 ? 16 : 32;
        for (int ph = 0; ph < k; ph += t) {
            float part = 0;
            for (int p = ph; p < k && p < ph + t; p++) part += terms[p];
            s += part;
        }
        return s;
    }
    case FMA_FORWARD:
        for (int p = 0; p < k; p++) s = fmaf(A->data[i * k + p], B->data[p * B->cols + j], s);
        return s;
    case STRIDED4: {
        float lanes[4] = {0, 0, 0, 0};
        for (int p = 0; p < k; p++) lanes[p % 4] += terms[p];
        return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    }
    }
    return s;
}

static tl_matrix product_in_order(const tl_matrix *A, const tl_matrix *B, order o)
{
    tl_matrix C = make(A->rows, B->cols);
    for (int i = 0; i < A->rows; i++)
        for (int j = 0; j < B->cols; j++)
            C.data[i * B->cols + j] = dot(A, B, i, j, o);
    return C;
}

static tl_check_report check(const tl_matrix *A, const tl_matrix *B, const tl_matrix *E,
                             const tl_matrix *G)
{
    tl_check_report rep;
    tl_error err;
    cr_assert_eq(tl_check_product(A, B, E, G, &rep, &err), 0, "%s", err.msg);
    return rep;
}

Test(error_bound, gamma_matches_its_definition)
{
    double u = 0x1p-24;
    cr_assert_float_eq(tl_gamma(1), u / (1 - u), 1e-22);
    cr_assert_float_eq(tl_gamma(1000), 1000 * u / (1 - 1000 * u), 1e-18);
    cr_assert(tl_gamma(2000) > tl_gamma(1000));
    cr_assert(isinf(tl_gamma((int64_t)1 << 24)), "k*u >= 1 leaves no bound");
}

Test(error_bound, accepts_every_correct_summation_order)
{
    static const int shapes[][3] = {{37, 513, 29}, {16, 1000, 16}, {5, 1, 7}, {1, 64, 1}};
    static const double ranges[][2] = {{-1, 1}, {0, 1}, {-1000, 1000}};
    for (int s = 0; s < 4; s++) {
        for (int r = 0; r < 3; r++) {
            rng_seed((uint64_t)(s * 10 + r));
            tl_matrix A = random_matrix(shapes[s][0], shapes[s][1], ranges[r][0], ranges[r][1]);
            tl_matrix B = random_matrix(shapes[s][1], shapes[s][2], ranges[r][0], ranges[r][1]);
            tl_matrix E = expected_of(&A, &B);
            for (order o = FORWARD; o <= STRIDED4; o++) {
                tl_matrix G = product_in_order(&A, &B, o);
                tl_check_report rep = check(&A, &B, &E, &G);
                cr_expect(rep.pass, "shape %d range %d order %d: %lld bad, worst ratio %g", s, r,
                          (int)o, (long long)rep.bad, rep.max_error_ratio);
                cr_expect_eq(rep.checked, (int64_t)E.rows * E.cols);
                tl_matrix_free(&G);
            }
            tl_matrix_free(&A);
            tl_matrix_free(&B);
            tl_matrix_free(&E);
        }
    }
}

Test(error_bound, rejects_off_by_one_indexing)
{
    rng_seed(7);
    tl_matrix A = random_matrix(33, 40, -1, 1), B = random_matrix(40, 33, -1, 1);
    tl_matrix E = expected_of(&A, &B), G = make(33, 33);
    /* The bug: B's column read one to the right (wrapping at the edge). */
    for (int i = 0; i < 33; i++)
        for (int j = 0; j < 33; j++) {
            float s = 0;
            for (int p = 0; p < 40; p++) s += A.data[i * 40 + p] * B.data[p * 33 + (j + 1) % 33];
            G.data[i * 33 + j] = s;
        }
    tl_check_report rep = check(&A, &B, &E, &G);
    cr_assert_not(rep.pass);
    cr_assert_gt(rep.bad, 33 * 33 * 9 / 10, "nearly every element is wrong, got %lld",
                 (long long)rep.bad);
    tl_matrix_free(&A); tl_matrix_free(&B); tl_matrix_free(&E); tl_matrix_free(&G);
}

Test(error_bound, rejects_a_missing_tile)
{
    rng_seed(8);
    tl_matrix A = random_matrix(32, 64, 0, 1), B = random_matrix(64, 32, 0, 1);
    tl_matrix E = expected_of(&A, &B), G = make(32, 32);
    /* The bug: the loop over phases stops one tile (16) early. */
    for (int i = 0; i < 32; i++)
        for (int j = 0; j < 32; j++) {
            float s = 0;
            for (int p = 0; p < 48; p++) s += A.data[i * 64 + p] * B.data[p * 32 + j];
            G.data[i * 32 + j] = s;
        }
    tl_check_report rep = check(&A, &B, &E, &G);
    cr_assert_not(rep.pass);
    cr_assert_eq(rep.bad, 32 * 32, "with positive inputs every element misses a tile");
    tl_matrix_free(&A); tl_matrix_free(&B); tl_matrix_free(&E); tl_matrix_free(&G);
}

Test(error_bound, rejects_a_transposed_operand)
{
    rng_seed(9);
    tl_matrix A = random_matrix(24, 24, -1, 1), B = random_matrix(24, 24, -1, 1);
    tl_matrix E = expected_of(&A, &B), G = make(24, 24);
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++) {
            float s = 0;
            for (int p = 0; p < 24; p++) s += A.data[i * 24 + p] * B.data[j * 24 + p];
            G.data[i * 24 + j] = s;
        }
    tl_check_report rep = check(&A, &B, &E, &G);
    cr_assert_not(rep.pass);
    cr_assert_gt(rep.bad, 24 * 24 / 2);
    tl_matrix_free(&A); tl_matrix_free(&B); tl_matrix_free(&E); tl_matrix_free(&G);
}

Test(error_bound, nan_and_inf_in_the_output_always_fail)
{
    rng_seed(10);
    tl_matrix A = random_matrix(4, 5, -1, 1), B = random_matrix(5, 6, -1, 1);
    tl_matrix E = expected_of(&A, &B), G = expected_of(&A, &B);
    G.data[7] = NAN;
    G.data[20] = INFINITY;
    tl_check_report rep = check(&A, &B, &E, &G);
    cr_assert_not(rep.pass);
    cr_assert_eq(rep.bad, 2);
    cr_assert_eq(rep.nonfinite, 2);
    cr_assert(rep.has_worst);
    cr_assert_eq(rep.worst.row, 1, "the first NaN (row 1, col 1) is the worst");
    cr_assert_eq(rep.worst.col, 1);
    cr_assert(isinf(rep.max_error_ratio));
    tl_matrix_free(&A); tl_matrix_free(&B); tl_matrix_free(&E); tl_matrix_free(&G);
}

Test(error_bound, reports_every_bad_element_not_just_the_first)
{
    rng_seed(11);
    tl_matrix A = random_matrix(10, 10, 0, 1), B = random_matrix(10, 10, 0, 1);
    tl_matrix E = expected_of(&A, &B), G = expected_of(&A, &B);
    int bad_at[] = {3, 17, 42, 55, 61, 80, 99};
    for (int i = 0; i < 7; i++)
        G.data[bad_at[i]] += 0.01f * (float)(i + 1);
    tl_check_report rep = check(&A, &B, &E, &G);
    cr_assert_eq(rep.bad, 7);
    cr_assert_eq(rep.nfirst, TL_CHECK_FIRST_N);
    for (int i = 0; i < TL_CHECK_FIRST_N; i++) {
        cr_assert_eq(rep.first[i].row * 10 + rep.first[i].col, bad_at[i], "row-major order");
        cr_assert(rep.first[i].bound > 0);
    }
    cr_assert_eq(rep.worst.row * 10 + rep.worst.col, 99, "the largest nudge is the worst");
    cr_assert_eq(rep.worst.got, G.data[99]);
    cr_assert_eq(rep.worst.expected, E.data[99]);
    tl_matrix_free(&A); tl_matrix_free(&B); tl_matrix_free(&E); tl_matrix_free(&G);
}

Test(error_bound, shape_mismatch_fails_with_both_shapes)
{
    tl_matrix A = make(3, 2), B = make(2, 4), E, G = make(4, 3);
    memset(A.data, 0, sizeof(float) * 6);
    memset(B.data, 0, sizeof(float) * 8);
    E = expected_of(&A, &B);
    tl_check_report rep = check(&A, &B, &E, &G);
    cr_assert_not(rep.pass);
    cr_assert(rep.shape_mismatch);
    cr_assert_eq(rep.got_rows, 4);
    cr_assert_eq(rep.got_cols, 3);
    cr_assert_eq(rep.expected_rows, 3);
    cr_assert_eq(rep.expected_cols, 4);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    tl_check_report_print(out, &rep);
    fclose(out);
    cr_assert(strstr(text, "output is 4 x 3, expected 3 x 4"), "got: %s", text);
    free(text);
    tl_matrix_free(&A); tl_matrix_free(&B); tl_matrix_free(&E); tl_matrix_free(&G);
}

Test(error_bound, inputs_that_do_not_form_a_product_are_an_error)
{
    tl_matrix A = make(3, 2), B = make(3, 4), E = make(3, 4);
    tl_check_report rep;
    tl_error err;
    cr_assert_eq(tl_check_product(&A, &B, &E, &E, &rep, &err), -1);
    cr_assert(strstr(err.msg, "A is 3 x 2, B is 3 x 4"), "got: %s", err.msg);
    tl_matrix_free(&A); tl_matrix_free(&B); tl_matrix_free(&E);
}

Test(error_bound, exact_zeros_allow_only_a_tiny_floor)
{
    tl_matrix A = make(2, 3), B = make(3, 2);
    memset(A.data, 0, sizeof(float) * 6);
    for (int i = 0; i < 6; i++) B.data[i] = 1.0f;
    tl_matrix E = expected_of(&A, &B), G = expected_of(&A, &B);
    G.data[0] = 1e-40f; /* a subnormal: within (k+1) * 2^-126 */
    cr_assert(check(&A, &B, &E, &G).pass);
    G.data[0] = 1e-30f;
    tl_check_report rep = check(&A, &B, &E, &G);
    cr_assert_not(rep.pass, "a visible non-zero where the product is exactly zero is wrong");
    cr_assert_eq(rep.bad, 1);
    tl_matrix_free(&A); tl_matrix_free(&B); tl_matrix_free(&E); tl_matrix_free(&G);
}

Test(libwb_tolerance, accepts_wrong_answers_on_small_values)
{
    rng_seed(12);
    tl_matrix A = random_matrix(16, 16, 0, 0.01), B = random_matrix(16, 16, 0, 0.01);
    tl_matrix E = expected_of(&A, &B), G = make(16, 16);
    memset(G.data, 0, sizeof(float) * 256); /* a kernel that never wrote its output */
    tl_check_report rep;
    tl_check_libwb(&E, &G, &rep);
    cr_assert(rep.pass, "libwb's 0.2 tolerance takes all zeros");
    rep = check(&A, &B, &E, &G);
    cr_assert_not(rep.pass, "the error bound does not");
    cr_assert_eq(rep.bad, 256);
    tl_matrix_free(&A); tl_matrix_free(&B); tl_matrix_free(&E); tl_matrix_free(&G);
}

Test(libwb_tolerance, rejects_right_answers_at_large_k)
{
    rng_seed(13);
    /* k = 1000 positive terms up to 100*100: sums near 2.5e6 where a float's spacing is 0.25,
     * so a plain left-to-right fp32 sum drifts by far more than 0.2. */
    tl_matrix A = random_matrix(8, 1000, 0, 100), B = random_matrix(1000, 8, 0, 100);
    tl_matrix E = expected_of(&A, &B), G = product_in_order(&A, &B, FORWARD);
    tl_check_report rep;
    tl_check_libwb(&E, &G, &rep);
    cr_assert_not(rep.pass, "libwb rejects a correct fp32 kernel");
    rep = check(&A, &B, &E, &G);
    cr_assert(rep.pass, "the error bound accepts it: %lld bad", (long long)rep.bad);
    tl_matrix_free(&A); tl_matrix_free(&B); tl_matrix_free(&E); tl_matrix_free(&G);
}

Test(libwb_tolerance, reports_every_element_and_the_shape)
{
    tl_matrix E = make(1, 4), G = make(1, 4);
    float e[] = {1000.0f, -2.0f, 0.0f, 5.0f};
    float g[] = {1000.1f, -2.3f, 0.2f, 5.5f};
    memcpy(E.data, e, sizeof e);
    memcpy(G.data, g, sizeof g);
    tl_check_report rep;
    tl_check_libwb(&E, &G, &rep);
    cr_assert_eq(rep.kind, TL_CHECK_LIBWB);
    cr_assert_not(rep.pass);
    cr_assert_eq(rep.bad, 3, "unlike libwb, it does not stop at the first: -2.3, 0.2 by 0, 5.5");
    cr_assert_eq(rep.first[0].col, 1);
    cr_assert_eq(rep.first[1].col, 2, "0.2 against an expected 0 is out: strictly below 0.2");
    cr_assert_eq(rep.worst.col, 3, "0.5 off is the worst");
    cr_assert_float_eq(rep.worst.bound, 0.2, 1e-7);
    cr_assert(strstr(rep.policy, "libwb"), "%s", rep.policy);
    G.data[1] = -2.1f;
    G.data[2] = 0.1f;
    G.data[3] = 5.2f;
    tl_check_libwb(&E, &G, &rep);
    cr_assert(rep.pass, "%lld bad", (long long)rep.bad);
    tl_matrix_free(&G);
    G = make(4, 1);
    tl_check_libwb(&E, &G, &rep);
    cr_assert(rep.shape_mismatch && !rep.pass);
    tl_matrix_free(&E); tl_matrix_free(&G);
}

Test(integers, exact_and_every_element)
{
    tl_matrix E = make(2, 3);
    float e[] = {0, 1, 127, 16777215.0f, -5, 3};
    memcpy(E.data, e, sizeof e);
    int64_t got[] = {0, 1, 127, 16777215, -5, 3};
    tl_check_report rep;
    tl_check_integers(&E, got, 2, 3, &rep);
    cr_assert(rep.pass && rep.kind == TL_CHECK_EXACT && rep.checked == 6);
    got[3] = 16777214; /* one off, at the top of what float32 holds exactly */
    got[5] = 4;
    tl_check_integers(&E, got, 2, 3, &rep);
    cr_assert_not(rep.pass);
    cr_assert_eq(rep.bad, 2);
    cr_assert(rep.first[0].row == 1 && rep.first[0].col == 0);
    cr_assert_eq(rep.first[0].got, 16777214.0, "the value as it is, not rounded to float");
    cr_assert_eq(rep.first[0].bound, 0.0);
    tl_check_integers(&E, got, 3, 2, &rep);
    cr_assert(rep.shape_mismatch && !rep.pass);
    tl_check_integers(&E, NULL, 2, 3, &rep);
    cr_assert(rep.shape_mismatch && !rep.pass, "no data is no result");
    tl_matrix_free(&E);
}

Test(report_text, names_the_worst_and_the_first_elements)
{
    rng_seed(14);
    tl_matrix A = random_matrix(3, 3, 0, 1), B = random_matrix(3, 3, 0, 1);
    tl_matrix E = expected_of(&A, &B), G = expected_of(&A, &B);
    G.data[5] = 42.0f;
    tl_check_report rep = check(&A, &B, &E, &G);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    tl_check_report_print(out, &rep);
    fclose(out);
    cr_assert(strstr(text, "FAIL: 1 of 9 elements wrong"), "got: %s", text);
    cr_assert(strstr(text, "worst (row 1, col 2): got 42"), "got: %s", text);
    cr_assert(strstr(text, "rule: |got-expected| <= gamma_4"), "got: %s", text);
    free(text);
    tl_matrix_free(&A); tl_matrix_free(&B); tl_matrix_free(&E); tl_matrix_free(&G);
}

/* A 23x37 by 37x19 product, its expected output, its reference and room for a result. */
typedef struct product_case {
    tl_matrix A, B, E, got;
    tl_product_ref ref;
} product_case;

static void product_case_make(product_case *c, uint64_t seed)
{
    rng_seed(seed);
    c->A = random_matrix(23, 37, -1, 1);
    c->B = random_matrix(37, 19, -1, 1);
    c->E = expected_of(&c->A, &c->B);
    c->got = make(23, 19);
    tl_error err;
    cr_assert_eq(tl_product_ref_init(&c->ref, &c->A, &c->B, &c->E, 1, &err), 0, "%s", err.msg);
}

static void product_case_free(product_case *c)
{
    tl_product_ref_free(&c->ref);
    tl_matrix_free(&c->A);
    tl_matrix_free(&c->B);
    tl_matrix_free(&c->E);
    tl_matrix_free(&c->got);
}

/* The reference made once must judge exactly as tl_check_product does, result after result. */
Test(product_ref, same_verdicts_as_check_product)
{
    product_case c;
    product_case_make(&c, 41);
    tl_matrix A = c.A, B = c.B, E = c.E, got = c.got;
    tl_product_ref ref = c.ref;
    tl_error err;
    for (int trial = 0; trial < 3; trial++) {
        memcpy(got.data, E.data, sizeof(float) * 23 * 19);
        if (trial == 1)
            got.data[5 * 19 + 7] += 1e-3f; /* one element off by far more than its bound */
        if (trial == 2)
            got.data[0] = NAN;
        tl_check_report a, b;
        cr_assert_eq(tl_check_product(&A, &B, &E, &got, &a, &err), 0, "%s", err.msg);
        tl_product_ref_check(&ref, &got, &b);
        cr_expect_eq(a.pass, b.pass, "trial %d", trial);
        cr_expect_eq(a.bad, b.bad, "trial %d", trial);
        cr_expect_eq(a.nonfinite, b.nonfinite, "trial %d", trial);
        cr_expect_eq(a.max_error_ratio, b.max_error_ratio, "trial %d", trial);
        cr_expect_str_eq(a.policy, b.policy);
        cr_expect_eq(b.pass, trial == 0, "trial %d", trial);
    }
    product_case_free(&c);
}

/* The per-element rule, for maps of where a result is wrong: exactly the elements the check
 * counts are not within, with the bounds the check reports for them. */
Test(product_ref, element_rule_matches_the_check)
{
    product_case c;
    product_case_make(&c, 43);
    tl_matrix E = c.E, got = c.got;
    tl_product_ref ref = c.ref;
    memcpy(got.data, E.data, sizeof(float) * 23 * 19);
    double bound;
    cr_assert(tl_product_ref_element_ok(&ref, &got, 30, &bound));
    got.data[30] = nextafterf(E.data[30], INFINITY); /* one ulp: within */
    got.data[40] = (float)(E.data[40] + 4 * bound + 1e-3); /* far over */
    got.data[50] = NAN;
    got.data[60] = INFINITY;
    tl_check_report rep;
    tl_product_ref_check(&ref, &got, &rep);
    cr_assert_eq(rep.bad, 3);
    int64_t bad = 0;
    for (int64_t i = 0; i < 23 * 19; i++) {
        bool ok = tl_product_ref_element_ok(&ref, &got, i, &bound);
        cr_expect_eq(ok, i != 40 && i != 50 && i != 60, "element %lld", (long long)i);
        if (!ok) {
            cr_expect_eq(rep.first[bad].row * 19 + rep.first[bad].col, i);
            cr_expect_eq(rep.first[bad].bound, bound, "element %lld", (long long)i);
            bad++;
        }
    }
    cr_expect_eq(bad, rep.bad);
    cr_expect(tl_product_ref_element_ok(&ref, &got, 30, NULL));
    product_case_free(&c);
}

/* Without an expected file the reference computes fl32 of the exact product itself: the same
 * bits a dataset's output.raw holds. */
Test(product_ref, computes_the_expected_values)
{
    rng_seed(7);
    tl_matrix A = random_matrix(31, 64, -1, 1), B = random_matrix(64, 17, -1, 1);
    tl_matrix E = expected_of(&A, &B);
    tl_product_ref ref;
    tl_error err;
    cr_assert_eq(tl_product_ref_init(&ref, &A, &B, NULL, 2, &err), 0, "%s", err.msg);
    cr_expect_eq(memcmp(ref.expected.data, E.data, sizeof(float) * 31 * 17), 0);
    tl_product_ref_free(&ref);
    tl_matrix wrong = make(30, 17);
    cr_expect_eq(tl_product_ref_init(&ref, &A, &B, &wrong, 1, &err), -1);
    cr_expect(strstr(err.msg, "expected output is 30 x 17") != NULL, "%s", err.msg);
    tl_matrix C = make(63, 17);
    cr_expect_eq(tl_product_ref_init(&ref, &A, &C, NULL, 1, &err), -1);
    cr_expect(strstr(err.msg, "do not form a product") != NULL, "%s", err.msg);
    tl_matrix_free(&A);
    tl_matrix_free(&B);
    tl_matrix_free(&C);
    tl_matrix_free(&E);
    tl_matrix_free(&wrong);
}
