/* _native.c - the CPython extension under the Python package mmagen: the
 * generator (libmmagen) and the GEMM launcher (libmmart) as a few plain
 * functions of strings and integers.  The Pythonic API (types, torch
 * tensors, caches) is the package's Python code; this file only converts.
 *
 * Errors: MmagenError (a ValueError) for a request the generator or the
 * launcher refuses, DeviceError (a RuntimeError) for the driver, the
 * device or a launch; both carry the library's one-line reason. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "mmagen.h"
#include "mmagen_jit.h"
#include "mmart.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static PyObject *MmagenError, *DeviceError;

/* A status of libmmagen as an exception (NULL for the caller to return). */
static PyObject *gen_fail(const char *what)
{
	const char *e = mmagen_last_error();
	PyErr_Format(MmagenError, "%s%s%s", what ? what : "", what && e && e[0] ? ": " : "",
		     e && e[0] ? e : "failed");
	return NULL;
}

/* A status of libmmart: bad arguments are the caller's (MmagenError); the
 * rest the driver's or the device's. */
static PyObject *rt_fail(mmart_status s)
{
	const char *e = mmart_last_error();
	PyErr_SetString(s == MMART_INVALID_ARGUMENT ? MmagenError : DeviceError,
			e && e[0] ? e : mmart_status_desc(s));
	return NULL;
}

static int target_of(const char *name, int *t)
{
	if (mmagen_target_parse(name, t) != MMAGEN_OK) {
		gen_fail(NULL);
		return -1;
	}
	return 0;
}

static PyObject *take_text(char *s, size_t len)
{
	PyObject *r = PyUnicode_FromStringAndSize(s, (Py_ssize_t)len);
	mmagen_free(s);
	return r;
}

/* A request for target t from a sequence of (facet, value) pairs. */
static int request_of(int t, PyObject *filters, mmagen_request *r)
{
	PyObject *seq = PySequence_Fast(filters, "filters must be a sequence of (facet, value)");
	if (!seq)
		return -1;
	mmagen_request_init(r);
	r->target = t;
	for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
		const char *f, *v;
		if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "ss", &f, &v)) {
			Py_DECREF(seq);
			return -1;
		}
		if (mmagen_request_set(r, f, v) != MMAGEN_OK) {
			Py_DECREF(seq);
			gen_fail(NULL);
			return -1;
		}
	}
	Py_DECREF(seq);
	return 0;
}

/* ---- the table ---- */

static PyObject *py_targets(PyObject *self, PyObject *noargs)
{
	(void)self, (void)noargs;
	PyObject *l = PyList_New(0);
	for (int t = 0; l && t < mmagen_target_count(); t++) {
		PyObject *s = PyUnicode_FromString(mmagen_target_name(t));
		if (!s || PyList_Append(l, s)) {
			Py_XDECREF(s);
			Py_CLEAR(l);
			break;
		}
		Py_DECREF(s);
	}
	return l;
}

static int set_str(PyObject *d, const char *k, const char *v)
{
	PyObject *s = PyUnicode_FromString(v);
	int r = s ? PyDict_SetItemString(d, k, s) : -1;
	Py_XDECREF(s);
	return r;
}

/* forms(target, filters) -> [dict]: every form on the target that the
 * filters select, its facets (keys with '_' for '-'), opcode, min_arch and
 * min_ptx, in table order. */
static PyObject *py_forms(PyObject *self, PyObject *args)
{
	const char *target;
	PyObject *filters;
	mmagen_request req;
	int t;

	(void)self;
	if (!PyArg_ParseTuple(args, "sO", &target, &filters) || target_of(target, &t) ||
	    request_of(t, filters, &req))
		return NULL;
	PyObject *l = PyList_New(0);
	for (size_t i = 0; l && i < mmagen_form_count(); i++) {
		const mmagen_form *f = mmagen_form_at(i);
		char buf[160], key[32];
		unsigned ptx;
		if (!mmagen_form_on_target(f, t) || !mmagen_form_matches(&req, f))
			continue;
		PyObject *d = PyDict_New();
		int bad = !d || set_str(d, "opcode", mmagen_form_opcode(f, buf, sizeof buf));
		for (unsigned j = 0; !bad && mmagen_facet_name(j); j++) {
			snprintf(key, sizeof key, "%s", mmagen_facet_name(j));
			for (char *p = key; *p; p++)
				if (*p == '-')
					*p = '_';
			bad = set_str(d, key, mmagen_form_facet(f, j, buf, sizeof buf));
		}
		ptx = mmagen_form_min_ptx(f, t);
		snprintf(buf, sizeof buf, "%u.%u", ptx / 10, ptx % 10);
		bad = bad || set_str(d, "min_arch", mmagen_target_name(mmagen_form_min_target(f))) ||
		      set_str(d, "min_ptx", buf) || PyList_Append(l, d);
		Py_XDECREF(d);
		if (bad)
			Py_CLEAR(l);
	}
	return l;
}

static int format_of(const char *s, mmagen_format *fmt)
{
	static const struct { const char *name; mmagen_format fmt; } f[] = {
		{ "ptx", MMAGEN_FMT_PTX }, { "cuda", MMAGEN_FMT_CUDA }, { "c", MMAGEN_FMT_CUDA },
		{ "text", MMAGEN_FMT_TEXT }, { "json", MMAGEN_FMT_JSON }, { "abi", MMAGEN_FMT_ABI },
	};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (!strcmp(s, f[i].name)) {
			*fmt = f[i].fmt;
			return 0;
		}
	PyErr_Format(MmagenError, "format '%s' is not one; legal: ptx, cuda, text (instructions); "
		     "ptx, json, abi, c (GEMM kernels)", s);
	return -1;
}

/* emit(target, opcode or None, filters, format) -> str: one instruction
 * as a PTX module, a CUDA header or the line alone. */
static PyObject *py_emit(PyObject *self, PyObject *args)
{
	const char *target, *opcode, *format;
	PyObject *filters;
	mmagen_request req;
	const mmagen_form *f;
	mmagen_format fmt;
	char *out = NULL;
	size_t len = 0;
	int t;

	(void)self;
	if (!PyArg_ParseTuple(args, "szOs", &target, &opcode, &filters, &format) ||
	    target_of(target, &t) || request_of(t, filters, &req) || format_of(format, &fmt))
		return NULL;
	if (fmt != MMAGEN_FMT_PTX && fmt != MMAGEN_FMT_TEXT && strcmp(format, "cuda"))
		return PyErr_Format(MmagenError, "emit writes ptx, cuda or text (got %s)", format);
	req.opcode = opcode;
	if (mmagen_select(&req, &f) != MMAGEN_OK ||
	    mmagen_emit_instr(f, t, fmt, &out, &len) != MMAGEN_OK)
		return gen_fail(NULL);
	return take_text(out, len);
}

/* The GEMM request from gemm_emit's / gemm_new's arguments. */
struct gemm_fields {
	const char *target, *a, *b, *out, *acc;
	unsigned layout, tile_m, tile_n, stages, cluster, split_k, schedule, path;
	const char *quant;        /* NULL: none; "fp8-block", "mxfp8", ... */
};

static int gemm_request_of(const struct gemm_fields *g, mmagen_gemm_request *r)
{
	mmagen_type a, b, out, acc = MMAGEN_TYPE_NONE;
	unsigned quant = 0;

	mmagen_gemm_request_init(r);
	if (g->quant && mmagen_qformat_parse(g->quant, &quant) != MMAGEN_OK) {
		gen_fail(NULL);
		return -1;
	}
	r->quant = quant;
	if ((g->target && mmagen_target_parse(g->target, &r->target) != MMAGEN_OK) ||
	    mmagen_type_parse(g->a, &a) != MMAGEN_OK || mmagen_type_parse(g->b, &b) != MMAGEN_OK ||
	    mmagen_type_parse(g->out, &out) != MMAGEN_OK ||
	    (g->acc && mmagen_type_parse(g->acc, &acc) != MMAGEN_OK)) {
		gen_fail(NULL);
		return -1;
	}
	if (!g->target)
		r->target = -1;     /* the GPU's own (mmagen_jit_generate) */
	r->a = a, r->b = b, r->out = out, r->acc = acc;
	r->layout = g->layout;
	r->tile_m = g->tile_m, r->tile_n = g->tile_n, r->stages = g->stages;
	r->cluster = g->cluster, r->split_k = g->split_k, r->schedule = g->schedule;
	r->path = g->path;
	return 0;
}

#define GEMM_FIELDS_FMT "zsssz" "IIIIIIII" "z"
#define GEMM_FIELDS(g) &(g).target, &(g).a, &(g).b, &(g).out, &(g).acc, &(g).layout, \
	&(g).tile_m, &(g).tile_n, &(g).stages, &(g).cluster, &(g).split_k, &(g).schedule, \
	&(g).path, &(g).quant

/* gemm_emit(target, a, b, out, acc, layout, tile_m, tile_n, stages,
 * cluster, split_k, schedule, path, quant, format, m, n, k, sms) -> str: the
 * kernel (ptx), its manifest (json), ABI (abi) or C header (c); m, n, k
 * non-zero: chosen for that problem on `sms` multiprocessors. */
static PyObject *py_gemm_emit(PyObject *self, PyObject *args)
{
	struct gemm_fields g;
	mmagen_gemm_request r;
	const char *format;
	unsigned m, n, k, sms;
	mmagen_format fmt;
	char *out = NULL;
	size_t len = 0;

	(void)self;
	if (!PyArg_ParseTuple(args, GEMM_FIELDS_FMT "sIIII", GEMM_FIELDS(g), &format, &m, &n, &k,
			      &sms) ||
	    format_of(format, &fmt))
		return NULL;
	if (!g.target)
		return PyErr_Format(MmagenError, "gemm_emit needs a target such as sm_90a");
	if (fmt == MMAGEN_FMT_TEXT || !strcmp(format, "cuda"))
		return PyErr_Format(MmagenError, "a GEMM kernel is written as ptx, json, abi or c "
				    "(got %s)", format);
	if (gemm_request_of(&g, &r))
		return NULL;
	if (m && mmagen_gemm_choose(&r, m, n, k, sms) != MMAGEN_OK)
		return gen_fail(NULL);
	if (mmagen_gemm_emit(&r, fmt, &out, &len) != MMAGEN_OK)
		return gen_fail(NULL);
	return take_text(out, len);
}

/* plan(quant, target) -> str: the plan as JSON. */
static PyObject *py_plan(PyObject *self, PyObject *args)
{
	const char *quant, *target;
	mmagen_plan_request r;
	mmagen_plan *p = NULL;
	char *out = NULL;
	size_t len = 0;

	(void)self;
	if (!PyArg_ParseTuple(args, "ss", &quant, &target))
		return NULL;
	mmagen_plan_request_init(&r);
	r.quant = quant;
	if (target_of(target, &r.target))
		return NULL;
	if (mmagen_plan_new(&r, &p) != MMAGEN_OK)
		return gen_fail(NULL);
	mmagen_status s = mmagen_plan_format(p, MMAGEN_FMT_JSON, &out, &len);
	mmagen_plan_free(p);
	if (s != MMAGEN_OK)
		return gen_fail(NULL);
	return take_text(out, len);
}

/* ---- the GPU ---- */

#define MAX_DEVICES 64
static mmart_ctx *contexts[MAX_DEVICES];

/* The context of `device`, opened on first use (under the GIL). */
static mmart_ctx *context(int device)
{
	mmart_status s;

	if (device < 0 || device >= MAX_DEVICES) {
		PyErr_Format(MmagenError, "device %d is not a CUDA device index; give 0 to %d",
			     device, MAX_DEVICES - 1);
		return NULL;
	}
	if (!contexts[device] && (s = mmart_open(device, &contexts[device]))) {
		rt_fail(s);
		return NULL;
	}
	return contexts[device];
}

/* device_info(device) -> (cc_major, cc_minor, name, sms) */
static PyObject *py_device_info(PyObject *self, PyObject *args)
{
	int device, major, minor, sms;
	char name[256];
	mmart_ctx *ctx;
	mmart_status s;

	(void)self;
	if (!PyArg_ParseTuple(args, "i", &device) || !(ctx = context(device)))
		return NULL;
	if ((s = mmart_device_info(ctx, &major, &minor, name, sizeof name)) ||
	    (s = mmart_device_sms(ctx, &sms)))
		return rt_fail(s);
	return Py_BuildValue("iisi", major, minor, name, sms);
}

/* A JIT GEMM: the request (which the handle's generator reads) and the
 * handle, one per device and kind of operands. */
struct pygemm {
	mmagen_gemm_request req;
	mmart_gemm *g;
};

static void pygemm_free(PyObject *cap)
{
	struct pygemm *p = PyCapsule_GetPointer(cap, "mmagen.gemm");
	if (p) {
		mmart_gemm_destroy(p->g);
		PyMem_Free(p);
	}
}

/* gemm_new(device, target or None, a, b, out, acc, layout, tile_m,
 * tile_n, stages, cluster, split_k, schedule, path, quant) -> capsule.  The
 * request is checked now (a kernel for 128^3 is described, not built). */
static PyObject *py_gemm_new(PyObject *self, PyObject *args)
{
	struct gemm_fields g;
	struct pygemm *p;
	mmart_ctx *ctx;
	mmart_status s;
	int device;

	mmagen_gemm_info info;

	(void)self;
	if (!PyArg_ParseTuple(args, "i" GEMM_FIELDS_FMT, &device, GEMM_FIELDS(g)))
		return NULL;
	if (!(p = PyMem_Calloc(1, sizeof *p)))
		return PyErr_NoMemory();
	memset(&info, 0, sizeof info);
	info.size = sizeof info;
	/* the request judged before the driver is opened when its target is
	 * given (a bad one is the caller's error on any machine), else once
	 * the GPU's target is known; either way before any shape */
	if (gemm_request_of(&g, &p->req) ||
	    (p->req.target >= 0 && mmagen_gemm_info_of(&p->req, &info) != MMAGEN_OK) ||
	    !(ctx = context(device))) {
		if (!PyErr_Occurred())
			gen_fail(NULL);
		PyMem_Free(p);
		return NULL;
	}
	if (p->req.target < 0) {
		if (mmagen_jit_target(ctx, &p->req.target) != MMART_OK) {
			PyMem_Free(p);
			return PyErr_Format(MmagenError, "this GPU's target is not one mmagen knows; "
					    "pass arch= (one of mmagen.targets())");
		}
		if (mmagen_gemm_info_of(&p->req, &info) != MMAGEN_OK) {
			PyMem_Free(p);
			return gen_fail(NULL);
		}
	}
	if ((s = mmart_gemm_create(ctx, mmagen_jit_generate, &p->req, &p->g))) {
		PyMem_Free(p);
		return rt_fail(s);
	}
	PyObject *cap = PyCapsule_New(p, "mmagen.gemm", pygemm_free);
	if (!cap) {
		mmart_gemm_destroy(p->g);
		PyMem_Free(p);
	}
	return cap;
}

static int u64_arg(PyObject *o, uint64_t *v)
{
	unsigned long long x = PyLong_AsUnsignedLongLong(o);
	if (x == (unsigned long long)-1 && PyErr_Occurred())
		return -1;
	*v = x;
	return 0;
}

/* gemm_launch(cap, stream, m, n, k, a, b, c, d, lda, ldb, ldc, ldd,
 * alpha, beta, d_scale, scratch, scratch_bytes, sa, sb, sa_sm, sa_sk,
 * sb_sn, sb_sk) -> int: 0 once launched; otherwise the bytes of scratch
 * the launch needs (nothing launched: the caller allocates and calls
 * again).  scratch 0 with scratch_bytes 2^64-1: the kernel's own
 * buffers.  The kernel of a new shape is made
 * here (generated, JIT-compiled or found in the caches).  The GIL is
 * released while the libraries work. */
#define NARGS 24
static PyObject *py_gemm_launch(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
	uint64_t v[NARGS];
	double alpha, beta, d_scale;
	struct pygemm *p;
	mmart_gemm_kernel *k;
	mmart_gemm_args a;
	mmart_status s;
	uint64_t need = 0;

	(void)self;
	if (argc != NARGS)
		return PyErr_Format(PyExc_TypeError, "gemm_launch takes %d arguments (%zd given)",
				    NARGS, argc);
	if (!(p = PyCapsule_GetPointer(argv[0], "mmagen.gemm")))
		return NULL;
	for (int i = 1; i < NARGS; i++) {
		if (i >= 13 && i <= 15)
			continue;
		if (u64_arg(argv[i], &v[i]))
			return NULL;
	}
	if (((alpha = PyFloat_AsDouble(argv[13])) == -1.0 && PyErr_Occurred()) ||
	    ((beta = PyFloat_AsDouble(argv[14])) == -1.0 && PyErr_Occurred()) ||
	    ((d_scale = PyFloat_AsDouble(argv[15])) == -1.0 && PyErr_Occurred()))
		return NULL;
	if (v[2] > UINT32_MAX || v[3] > UINT32_MAX || v[4] > UINT32_MAX)
		return PyErr_Format(MmagenError, "M = %llu, N = %llu, K = %llu: each is 1 to 2^31-1",
				    (unsigned long long)v[2], (unsigned long long)v[3],
				    (unsigned long long)v[4]);
	mmart_gemm_args_init(&a);
	a.m = (uint32_t)v[2], a.n = (uint32_t)v[3], a.k = (uint32_t)v[4];
	a.a = v[5], a.b = v[6], a.c = v[7], a.d = v[8];
	a.lda = v[9], a.ldb = v[10], a.ldc = v[11], a.ldd = v[12];
	a.alpha = (float)alpha, a.beta = (float)beta, a.d_scale = (float)d_scale;
	a.scratch = v[16], a.scratch_bytes = v[17];
	a.sa = v[18], a.sb = v[19];
	a.sa_sm = v[20], a.sa_sk = v[21], a.sb_sn = v[22], a.sb_sk = v[23];
	Py_BEGIN_ALLOW_THREADS
	s = mmart_gemm_kernel_for(p->g, a.m, a.n, a.k, &k);
	if (!s)
		s = mmart_gemm_kernel_scratch(k, &a, &need);
	if (!s && need <= a.scratch_bytes) {
		if (!need)
			a.scratch = a.scratch_bytes = 0;
		s = mmart_gemm_kernel_launch(k, &a, (void *)(uintptr_t)v[1]);
		need = 0;
	}
	Py_END_ALLOW_THREADS
	if (s)
		return rt_fail(s);
	return PyLong_FromUnsignedLongLong(need);
}

/* ---- DLPack: a capsule's tensor as plain values ---- */
typedef struct {
	int32_t device_type, device_id;
} dl_device;
typedef struct {
	uint8_t code, bits;
	uint16_t lanes;
} dl_dtype;
typedef struct {
	void *data;
	dl_device device;
	int32_t ndim;
	dl_dtype dtype;
	int64_t *shape, *strides;
	uint64_t byte_offset;
} dl_tensor;
typedef struct {
	dl_tensor t;
	/* manager_ctx and deleter follow; not read */
} dl_managed;

/* dlpack_info(capsule) -> (address, device_type, device_id, code, bits,
 * lanes, shape, strides or None).  The capsule is read, not consumed: its
 * producer's destructor frees it. */
static PyObject *py_dlpack_info(PyObject *self, PyObject *cap)
{
	(void)self;
	dl_managed *m = PyCapsule_GetPointer(cap, "dltensor");
	if (!m)
		return NULL;
	dl_tensor *t = &m->t;
	if (t->ndim < 0 || t->ndim > 8)
		return PyErr_Format(MmagenError, "DLPack tensor of %d dimensions", (int)t->ndim);
	PyObject *shape = PyTuple_New(t->ndim), *strides = NULL;
	if (!shape)
		return NULL;
	for (int i = 0; i < t->ndim; i++) {
		PyObject *v = PyLong_FromLongLong(t->shape[i]);
		if (!v) {
			Py_DECREF(shape);
			return NULL;
		}
		PyTuple_SET_ITEM(shape, i, v);
	}
	if (t->strides) {
		if (!(strides = PyTuple_New(t->ndim))) {
			Py_DECREF(shape);
			return NULL;
		}
		for (int i = 0; i < t->ndim; i++) {
			PyObject *v = PyLong_FromLongLong(t->strides[i]);
			if (!v) {
				Py_DECREF(shape);
				Py_DECREF(strides);
				return NULL;
			}
			PyTuple_SET_ITEM(strides, i, v);
		}
	} else {
		strides = Py_NewRef(Py_None);
	}
	return Py_BuildValue("KiiiiiNN", (unsigned long long)((uintptr_t)t->data + t->byte_offset),
			     (int)t->device.device_type, (int)t->device.device_id,
			     (int)t->dtype.code, (int)t->dtype.bits, (int)t->dtype.lanes, shape,
			     strides);
}

static PyObject *py_version(PyObject *self, PyObject *noargs)
{
	(void)self, (void)noargs;
	return PyUnicode_FromString(MMAGEN_PY_VERSION);
}

static PyMethodDef methods[] = {
	{ "version", py_version, METH_NOARGS, "the package's version" },
	{ "targets", py_targets, METH_NOARGS, "the targets, in order" },
	{ "forms", py_forms, METH_VARARGS, "forms(target, filters) -> [dict]" },
	{ "emit", py_emit, METH_VARARGS, "emit(target, opcode, filters, format) -> str" },
	{ "gemm_emit", py_gemm_emit, METH_VARARGS, "a GEMM kernel's text" },
	{ "plan", py_plan, METH_VARARGS, "plan(quant, target) -> JSON text" },
	{ "device_info", py_device_info, METH_VARARGS, "(cc_major, cc_minor, name, sms)" },
	{ "gemm_new", py_gemm_new, METH_VARARGS, "a JIT GEMM handle" },
	{ "gemm_launch", (PyCFunction)(void (*)(void))py_gemm_launch, METH_FASTCALL,
	  "launch, or the scratch bytes needed" },
	{ "dlpack_info", py_dlpack_info, METH_O, "a DLPack capsule's tensor" },
	{ NULL, NULL, 0, NULL }
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "mmagen._native",
	"mmagen's generator and GEMM launcher (use the package mmagen)", -1, methods,
	NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__native(void)
{
	PyObject *m = PyModule_Create(&module);
	if (!m)
		return NULL;
	MmagenError = PyErr_NewExceptionWithDoc("mmagen.MmagenError",
		"A request mmagen refuses: the message names the rule and the nearest legal value.",
		PyExc_ValueError, NULL);
	DeviceError = PyErr_NewExceptionWithDoc("mmagen.DeviceError",
		"The CUDA driver, the device or a launch failed (no GPU, no driver, a fault).",
		PyExc_RuntimeError, NULL);
	if (!MmagenError || !DeviceError || PyModule_AddObjectRef(m, "MmagenError", MmagenError) ||
	    PyModule_AddObjectRef(m, "DeviceError", DeviceError)) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
