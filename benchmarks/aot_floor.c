/* Two kernels written by hand in C, for benchmarks/aot_floor.py only (not part of the package):
   the byte scanner (rouge_exact/kernels/scan.py, _scan_stem with spans False) and ROUGE-L's
   LCS (rouge_exact/kernels/score.py, lcs_stats). aot_floor.py compiles this file into a
   temporary folder and checks every call's result against the numba kernel's. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN 0x9E3779B97F4A7C15ULL
#define MIN_STEM_CODE 52060

static PyArrayObject *checked(PyObject *obj, int typenum, int ndim, const char *name)
{
    if (!PyArray_Check(obj) || PyArray_TYPE((PyArrayObject *)obj) != typenum
        || PyArray_NDIM((PyArrayObject *)obj) != ndim
        || !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)obj)) {
        PyErr_Format(PyExc_TypeError, "%s: a C-contiguous %d-d array of the kernel's dtype "
                     "is allowed", name, ndim);
        return NULL;
    }
    return (PyArrayObject *)obj;
}

static PyObject *new_int64(npy_intp n, int64_t **data)
{
    PyObject *a = PyArray_SimpleNew(1, &n, NPY_INT64);
    if (a) *data = (int64_t *)PyArray_DATA((PyArrayObject *)a);
    return a;
}

/* scan_stem(buf u8, digit i64[256], max_packed_len, keys i64, vals i64, stem) ->
   (codes, sent_ends, text_ends, long_tok, long_start, long_end, pending) */
static PyObject *scan_stem(PyObject *self, PyObject *args)
{
    PyObject *buf_o, *digit_o, *keys_o, *vals_o;
    long long mpl;
    int stem;
    if (!PyArg_ParseTuple(args, "OOLOOp", &buf_o, &digit_o, &mpl, &keys_o, &vals_o, &stem))
        return NULL;
    PyArrayObject *buf_a = checked(buf_o, NPY_UINT8, 1, "buf");
    PyArrayObject *digit_a = checked(digit_o, NPY_INT64, 1, "digit");
    PyArrayObject *keys_a = checked(keys_o, NPY_INT64, 1, "keys");
    PyArrayObject *vals_a = checked(vals_o, NPY_INT64, 1, "vals");
    if (!buf_a || !digit_a || !keys_a || !vals_a) return NULL;
    if (PyArray_DIM(digit_a, 0) < 256) {
        PyErr_SetString(PyExc_ValueError, "digit: 256 entries needed");
        return NULL;
    }
    const uint8_t *buf = PyArray_DATA(buf_a);
    const int64_t *digit = PyArray_DATA(digit_a);
    const int64_t *keys = PyArray_DATA(keys_a), *vals = PyArray_DATA(vals_a);
    npy_intp n = PyArray_DIM(buf_a, 0), size = PyArray_DIM(keys_a, 0);
    int bits = 0;
    while (((npy_intp)1 << bits) < size) bits++;
    if (bits == 0) bits = 1;
    unsigned shift = 64 - bits;
    int64_t mask = size - 1;

    npy_intp n_tok = 0, n_breaks = 0, n_zero = 0;
    int prev = 0;
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp i = 0; i < n; i++) {
        uint8_t ch = buf[i];
        int inside = digit[ch] > 0;
        n_tok += inside & (prev ^ 1);
        prev = inside;
        n_breaks += (ch == 10) | (ch == 0);
        n_zero += ch == 0;
    }
    Py_END_ALLOW_THREADS
    int64_t *codes, *sent_ends, *text_ends, *long_tok, *long_start, *long_end, *pending;
    npy_intp n_long_max = n / (mpl + 1) + 1;
    int64_t *tmp = malloc(sizeof(int64_t) * (3 * n_long_max + (stem ? n_tok : 0) + 1));
    if (!tmp) return PyErr_NoMemory();
    PyObject *codes_o = new_int64(n_tok, &codes);
    PyObject *sent_o = new_int64(n_breaks + 1, &sent_ends);
    PyObject *text_o = new_int64(n_zero + 1, &text_ends);
    if (!codes_o || !sent_o || !text_o) {
        free(tmp);
        Py_XDECREF(codes_o); Py_XDECREF(sent_o); Py_XDECREF(text_o);
        return NULL;
    }
    long_tok = tmp;
    long_start = tmp + n_long_max;
    long_end = tmp + 2 * n_long_max;
    pending = tmp + 3 * n_long_max;
    npy_intp t = 0, n_sent = 0, n_text = 0, n_long = 0, n_pending = 0, i = 0;
    Py_BEGIN_ALLOW_THREADS
    while (i < n) {
        int64_t d = digit[buf[i]];
        if (d > 0) {
            npy_intp start = i;
            uint64_t code = (uint64_t)d;  /* wraps past 12 characters, as numba's int64 */
            i++;
            while (i < n) {
                d = digit[buf[i]];
                if (d == 0) break;
                code = code * 37u + (uint64_t)d;
                i++;
            }
            int64_t c = (int64_t)code;
            if (i - start > mpl) {
                c = 0;
                long_tok[n_long] = t;
                long_start[n_long] = start;
                long_end[n_long] = i;
                n_long++;
            } else if (stem && c >= MIN_STEM_CODE) {
                int64_t h = (int64_t)(((uint64_t)c * GOLDEN) >> shift);
                while (keys[h] != 0 && keys[h] != c) h = (h + 1) & mask;
                if (keys[h] == c && vals[h] > 0) c = vals[h];
                else pending[n_pending++] = t;
            }
            codes[t++] = c;
            continue;
        }
        uint8_t ch = buf[i];
        if (ch == 10 || ch == 0) {
            sent_ends[n_sent++] = t;
            if (ch == 0) text_ends[n_text++] = n_sent;
        }
        i++;
    }
    sent_ends[n_sent++] = t;
    text_ends[n_text++] = n_sent;
    Py_END_ALLOW_THREADS
    int64_t *a, *b, *c, *e;
    PyObject *lt = new_int64(n_long, &a), *ls = new_int64(n_long, &b);
    PyObject *le = new_int64(n_long, &c), *pe = new_int64(n_pending, &e);
    if (lt && ls && le && pe) {
        memcpy(a, long_tok, n_long * sizeof(int64_t));
        memcpy(b, long_start, n_long * sizeof(int64_t));
        memcpy(c, long_end, n_long * sizeof(int64_t));
        memcpy(e, pending, n_pending * sizeof(int64_t));
    }
    free(tmp);
    if (!lt || !ls || !le || !pe) {
        Py_DECREF(codes_o); Py_DECREF(sent_o); Py_DECREF(text_o);
        Py_XDECREF(lt); Py_XDECREF(ls); Py_XDECREF(le); Py_XDECREF(pe);
        return NULL;
    }
    return Py_BuildValue("(NNNNNNN)", codes_o, sent_o, text_o, lt, ls, le, pe);
}

/* LCS length of dense ids a (n) and b (m), ids < u: Hyyro's bit-vector algorithm, the match
   row of an id that occurs more than `words` times precomputed (at most 64 such ids). */
static int64_t lcs_length(const int64_t *a, int64_t n, const int64_t *b, int64_t m,
                          int64_t *head, int64_t *nxt, int64_t *mask_of, uint64_t *masks,
                          uint64_t *v, uint64_t *match, int64_t u)
{
    if (n == 0 || m == 0) return 0;
    int64_t words = (n + 63) / 64;
    for (int64_t k = 0; k < u; k++) { head[k] = -1; mask_of[k] = -1; }
    for (int64_t pos = n - 1; pos >= 0; pos--) { nxt[pos] = head[a[pos]]; head[a[pos]] = pos; }
    int64_t rows = 0;
    for (int64_t pos = 0; pos < n; pos++) {
        if (head[a[pos]] == pos) {
            int64_t count = 0;
            for (int64_t p = pos; p >= 0; p = nxt[p]) count++;
            if (count > words) mask_of[a[pos]] = rows++;
        }
    }
    memset(masks, 0, sizeof(uint64_t) * rows * words);
    for (int64_t pos = 0; pos < n; pos++) {
        int64_t row = mask_of[a[pos]];
        if (row >= 0) masks[row * words + (pos >> 6)] |= 1ULL << (pos & 63);
    }
    for (int64_t w = 0; w < words; w++) { v[w] = ~0ULL; match[w] = 0; }
    for (int64_t i = 0; i < m; i++) {
        int64_t token = b[i], first = head[token];
        if (first < 0) continue;
        int64_t row = mask_of[token];
        const uint64_t *mrow = row >= 0 ? masks + row * words : match;
        if (row < 0)
            for (int64_t pos = first; pos >= 0; pos = nxt[pos]) match[pos >> 6] |= 1ULL << (pos & 63);
        uint64_t carry = 0;
        for (int64_t w = 0; w < words; w++) {
            uint64_t mw = mrow[w], x = v[w], y = x & mw, s = x + y;
            uint64_t c1 = s < x, s2 = s + carry, c2 = s2 < s;
            carry = c1 | c2;
            v[w] = s2 | (x & ~mw);
        }
        if (row < 0)
            for (int64_t pos = first; pos >= 0; pos = nxt[pos]) match[pos >> 6] = 0;
    }
    int64_t total = 0;
    for (int64_t w = 0; w < (n >> 6); w++) total += __builtin_popcountll(~v[w]);
    if (n & 63) total += __builtin_popcountll(~v[n >> 6] & ((1ULL << (n & 63)) - 1));
    return total;
}

/* lcs_stats(tokens, text_offsets, pair_pred, pair_ref) -> int64[pairs, 3] (lcs, lp, lr) */
static PyObject *lcs_stats(PyObject *self, PyObject *args)
{
    PyObject *t_o, *o_o, *p_o, *r_o;
    if (!PyArg_ParseTuple(args, "OOOO", &t_o, &o_o, &p_o, &r_o)) return NULL;
    PyArrayObject *t_a = checked(t_o, NPY_INT64, 1, "tokens");
    PyArrayObject *o_a = checked(o_o, NPY_INT64, 1, "text_offsets");
    PyArrayObject *p_a = checked(p_o, NPY_INT64, 1, "pair_pred");
    PyArrayObject *r_a = checked(r_o, NPY_INT64, 1, "pair_ref");
    if (!t_a || !o_a || !p_a || !r_a) return NULL;
    const int64_t *tokens = PyArray_DATA(t_a), *off = PyArray_DATA(o_a);
    const int64_t *pp = PyArray_DATA(p_a), *pr = PyArray_DATA(r_a);
    npy_intp pairs = PyArray_DIM(p_a, 0), dims[2] = {pairs, 3};
    PyObject *out_o = PyArray_ZEROS(2, dims, NPY_INT64, 0);
    if (!out_o) return NULL;
    int64_t *out = PyArray_DATA((PyArrayObject *)out_o);
    int64_t big = 1;  /* the largest pair: the scratch is sized once */
    for (npy_intp k = 0; k < pairs; k++) {
        int64_t s = off[pp[k] + 1] - off[pp[k]] + off[pr[k] + 1] - off[pr[k]];
        if (s > big) big = s;
    }
    int64_t slots = 2;
    while (slots < 2 * big) slots *= 2;
    int64_t words = (big + 63) / 64;
    int64_t *scratch = malloc(sizeof(int64_t) * (5 * big + slots + 1));
    uint64_t *bitbuf = malloc(sizeof(uint64_t) * (66 * words + 1));
    if (!scratch || !bitbuf) { free(scratch); free(bitbuf); Py_DECREF(out_o); return PyErr_NoMemory(); }
    int64_t *both = scratch, *ids = scratch + big, *head = scratch + 2 * big;
    int64_t *nxt = scratch + 3 * big, *mask_of = scratch + 4 * big, *first = scratch + 5 * big;
    uint64_t *v = bitbuf, *match = bitbuf + words, *masks = bitbuf + 2 * words;
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp k = 0; k < pairs; k++) {
        int64_t p0 = off[pp[k]], p1 = off[pp[k] + 1], r0 = off[pr[k]], r1 = off[pr[k] + 1];
        int64_t lp = p1 - p0, lr = r1 - r0, len = lp + lr;
        memcpy(both, tokens + p0, lp * sizeof(int64_t));
        memcpy(both + lp, tokens + r0, lr * sizeof(int64_t));
        /* dense ids: open addressing, Fibonacci hashing (registry.dense_ids_into) */
        int64_t size = 2, bits = 1, u = 0;
        while (size < 2 * len) { size *= 2; bits++; }
        for (int64_t h = 0; h < size; h++) first[h] = -1;
        for (int64_t i = 0; i < len; i++) {
            int64_t val = both[i];
            int64_t h = (int64_t)(((uint64_t)val * GOLDEN) >> (64 - bits));
            for (;;) {
                int64_t j = first[h];
                if (j < 0) { first[h] = i; ids[i] = u++; break; }
                if (both[j] == val) { ids[i] = ids[j]; break; }
                h = (h + 1) & (size - 1);
            }
        }
        out[3 * k] = lcs_length(ids, lp, ids + lp, lr, head, nxt, mask_of, masks, v, match, u);
        out[3 * k + 1] = lp;
        out[3 * k + 2] = lr;
    }
    Py_END_ALLOW_THREADS
    free(scratch);
    free(bitbuf);
    return out_o;
}

static PyMethodDef methods[] = {
    {"scan_stem", scan_stem, METH_VARARGS, "the byte scanner (kernels.scan._scan_stem)"},
    {"lcs_stats", lcs_stats, METH_VARARGS, "ROUGE-L's LCS (kernels.score.lcs_stats)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "rouge_c_kernels", NULL, -1, methods,
                                     NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_rouge_c_kernels(void)
{
    import_array();
    return PyModule_Create(&module);
}
