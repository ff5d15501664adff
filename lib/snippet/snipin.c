/*
 * snipin: what prepare() gives each argument of a copied function, and the
 * checks of a config's inputs section.  What the data sources supply is
 * upstream's development/profiling/data/: dummy.py's records hold an
 * image (a float32 tensor, unless include_image is false) and the
 * metadata tensor, scores and boxes; images.py's hold the decoded RGB
 * image (a uint8 numpy array, unless decode is false) and the file's path,
 * and empty metadata.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "snippet/snipin.h"

/* prepare() makes no tensor larger than this many elements. */
#define MAX_ELEMENTS	(INT64_C(1) << 31)

const char *const snipin_dtypes[] = {
	"float32", "float16", "bfloat16", "float64", "int64", "int32",
	"int16", "int8", "uint8", "bool", NULL
};

static const char *const image_names[] = {
	"image", "img", "frame", "np_image", "image_np", "picture", "rgb",
	"bgr", "im", NULL
};
static const char *const images_names[] = {
	"images", "imgs", "frames", "pictures", NULL
};
static const char *const path_names[] = {
	"path", "filepath", "filename", "file", "fname", NULL
};
static const char *const tensor_names[] = {
	"x", "input", "inputs", "output", "outputs", "logits", "prediction",
	"predictions", "preds", "pred", "raw", "features", "feats",
	"embedding", "embeddings", "mask", "masks", "tensor", "tensors",
	"scores", "boxes", "bboxes", "batch", "heatmap", "heatmaps", "probs",
	"proto", "protos", "anchors", "keypoints", "points", "img_in",
	"pixel_values", "input_ids", "hidden_states", "detections", NULL
};
static const char *const object_names[] = {
	"model", "manager", "session", "engine", "predictor", "detector",
	"client", "pipeline", "processor", "tokenizer", "backend", "runner",
	"registry", "cache", "encoder", "decoder", "net", "module", NULL
};
/* The words of an annotation that only scalars and their containers use. */
static const char *const value_words[] = {
	"int", "float", "bool", "str", "complex", "None", "Optional",
	"Union", "Literal", "List", "list", "Tuple", "tuple", "Dict", "dict",
	"Set", "set", "FrozenSet", "frozenset", "Sequence", "Mapping",
	"typing", NULL
};

static int	in_list(const char *, const char *const *);
static int	has_suffix(const char *, const char *);
static int	suffix_in(const char *, const char *const *);
static int	ann_has(const char *, const char *);
static int	ann_only(const char *, const char *const *);
static int	ann_class(const char *);
static const char *array_want(const char *);
static void	tensor(struct snipin *, const char *, const char *);
static void	check_entry(const struct snipcfg *, const struct ynode *,
		    const struct ynode *, struct sdiags *);
static void	check_field(const struct snipcfg *, const char *,
		    const struct ynode *, struct sdiags *);
static int	dotted(const char *);

static int
in_list(const char *s, const char *const *v)
{
	for (; *v != NULL; v++)
		if (strcmp(s, *v) == 0)
			return 1;
	return 0;
}

static int
has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && strcmp(s + n - m, suffix) == 0;
}

/* Whether s is "<something>_<word>" for a word of v. */
static int
suffix_in(const char *s, const char *const *v)
{
	char buf[64];

	for (; *v != NULL; v++) {
		snprintf(buf, sizeof(buf), "_%s", *v);
		if (has_suffix(s, buf))
			return 1;
	}
	return 0;
}

/*
 * Whether the annotation has the word: a dotted name that is word or ends
 * in .word (torch.Tensor has Tensor, np.ndarray has ndarray).
 */
static int
ann_has(const char *a, const char *word)
{
	size_t n = strlen(word), i = 0, j;

	if (a == NULL)
		return 0;
	while (a[i] != '\0') {
		for (j = i; a[j] == '_' || a[j] == '.' || (a[j] >= 'a' &&
		    a[j] <= 'z') || (a[j] >= 'A' && a[j] <= 'Z') ||
		    (a[j] >= '0' && a[j] <= '9'); j++)
			;
		if (j - i >= n && memcmp(a + j - n, word, n) == 0 &&
		    (j - i == n || a[j - n - 1] == '.'))
			return 1;
		i = j > i ? j : i + 1;
	}
	return 0;
}

/* Whether every word of the annotation is one of v. */
static int
ann_only(const char *a, const char *const *v)
{
	char word[64];
	size_t i = 0, j;
	int any = 0;

	if (a == NULL)
		return 0;
	while (a[i] != '\0') {
		for (j = i; a[j] == '_' || a[j] == '.' || (a[j] >= 'a' &&
		    a[j] <= 'z') || (a[j] >= 'A' && a[j] <= 'Z') ||
		    (a[j] >= '0' && a[j] <= '9'); j++)
			;
		if (j > i) {
			const char *w;

			if (j - i >= sizeof(word))
				return 0;
			memcpy(word, a + i, j - i);
			word[j - i] = '\0';
			w = strrchr(word, '.');
			w = w != NULL ? w + 1 : word;
			/* Digits: Literal[0] and the like. */
			if (!(word[0] >= '0' && word[0] <= '9') &&
			    !in_list(w, v) && strcmp(word, "typing") != 0)
				return 0;
			any = 1;
			i = j;
		} else
			i++;
	}
	return any;
}

/* A plain dotted name whose last part starts with a capital: a class. */
static int
ann_class(const char *a)
{
	const char *last;

	if (a == NULL || !dotted(a))
		return 0;
	last = strrchr(a, '.');
	last = last != NULL ? last + 1 : a;
	return last[0] >= 'A' && last[0] <= 'Z' && !in_list(last, value_words) &&
	    strcmp(last, "Any") != 0;
}

/* How the copy takes an array, by its annotation. */
static const char *
array_want(const char *a)
{
	if (ann_has(a, "ndarray") || ann_has(a, "NDArray"))
		return "numpy";
	if (ann_has(a, "Tensor"))
		return "torch";
	return "any";
}

int
snipin_is_device(const char *name, const char *annotation)
{
	return strcmp(name, "device") == 0 ||
	    strcmp(name, "target_device") == 0 ||
	    has_suffix(name, "_device") ||
	    (annotation != NULL && (strcmp(annotation, "torch.device") == 0 ||
	    strcmp(annotation, "device") == 0));
}

void
snipin_classify(struct snipin *in, const char *name, const char *annotation,
    int has_default, const char *source)
{
	struct strbuf h = { 0 };
	const char *a = annotation;
	int dummy = strcmp(source, "dummy") == 0;

	memset(in, 0, sizeof(*in));
	in->want = "any";
	if (snipin_is_device(name, a)) {
		in->kind = SI_DEVICE;
		return;
	}
	if (has_default) {
		in->kind = SI_DEFAULT;
		return;
	}
	in->kind = SI_FIELD;
	if (strcmp(name, "record") == 0) {
		in->field = xstrdup("record");
		return;
	}
	if (ann_has(a, "bytes") || ann_has(a, "bytearray") ||
	    has_suffix(name, "_bytes") || has_suffix(name, "_buffer") ||
	    strcmp(name, "encoded") == 0) {
		in->field = xstrdup("bytes");
		if (dummy)
			in->hint = xstrdup("the encoded bytes of an image file:"
			    " only the images data source has them");
		return;
	}
	if (ann_has(a, "Path") || ann_has(a, "PathLike") ||
	    in_list(name, path_names) || has_suffix(name, "_path") ||
	    has_suffix(name, "_file") || has_suffix(name, "_filename")) {
		in->field = xstrdup("path");
		in->want = ann_has(a, "Path") ? "any" : "str";
		if (dummy)
			in->hint = xstrdup("an image file's path: only the images"
			    " data source has one");
		return;
	}
	if (in_list(name, images_names) || suffix_in(name, images_names)) {
		in->field = xstrdup("image");
		in->want = strcmp(array_want(a), "torch") == 0 ? "list-torch" :
		    "list-numpy";
		return;
	}
	if (in_list(name, image_names) || has_suffix(name, "_image") ||
	    has_suffix(name, "_img") || has_suffix(name, "_frame") ||
	    ann_has(a, "Image")) {
		/* Unless a tensor, an image is what cv2 and the images
		 * source have: a numpy array. */
		in->field = xstrdup("image");
		in->want = strcmp(array_want(a), "torch") == 0 ? "torch" :
		    "numpy";
		return;
	}
	if (dummy && (strcmp(name, "tensor") == 0 ||
	    strcmp(name, "scores") == 0 || strcmp(name, "boxes") == 0)) {
		sb_printf(&h, "metadata.%s", name);
		in->field = h.s;
		in->want = array_want(a);
		return;
	}
	in->kind = SI_VALUE;
	if (strcmp(name, "model_id") == 0 || has_suffix(name, "_model_id")) {
		in->hint = xstrdup("a model id, such as \"project/3\"");
		return;
	}
	if (strcmp(name, "api_key") == 0 || has_suffix(name, "_api_key")) {
		in->hint = xstrdup("an API key (better read from the"
		    " environment than written here)");
		return;
	}
	if (ann_only(a, value_words) && !ann_has(a, "Tensor") &&
	    !ann_has(a, "ndarray")) {
		sb_printf(&h, "a value of type %s", a);
		in->hint = h.s;
		return;
	}
	if (ann_has(a, "ndarray") || ann_has(a, "NDArray") ||
	    ann_has(a, "Tensor")) {
		tensor(in, name, a);
		return;
	}
	if (in_list(name, object_names) || suffix_in(name, object_names) ||
	    ann_class(a)) {
		in->kind = SI_OBJECT;
		if (!in_list(name, object_names) && !suffix_in(name,
		    object_names) && !ann_has(a, "Module"))
			in->call = xstrdup(a);
		sb_printf(&h, "what makes %s%s%s%s: a class or function that"
		    " target.py imports, and its keyword arguments", name,
		    a != NULL ? " (" : "", a != NULL ? a : "",
		    a != NULL ? ")" : "");
		in->hint = h.s;
		return;
	}
	if (in_list(name, tensor_names) || suffix_in(name, tensor_names)) {
		tensor(in, name, a);
		return;
	}
	sb_printf(&h, "a value for %s%s%s%s", name, a != NULL ? " (" : "",
	    a != NULL ? a : "", a != NULL ? ")" : "");
	in->hint = h.s;
}

/* A tensor prepare() makes, by the shape config.yaml gives. */
static void
tensor(struct snipin *in, const char *name, const char *a)
{
	struct strbuf h = { 0 };

	in->kind = SI_TENSOR;
	in->want = strcmp(array_want(a), "numpy") == 0 ? "numpy" : "torch";
	if (a != NULL && (ann_has(a, "List") || ann_has(a, "list") ||
	    ann_has(a, "Sequence") || ann_has(a, "Iterable")))
		in->want = strcmp(in->want, "numpy") == 0 ? "list-numpy" :
		    "list-torch";
	sb_printf(&h, "the shape of %s%s%s%s, such as [1, 3, 640, 640]", name,
	    a != NULL ? " (" : "", a != NULL ? a : "", a != NULL ? ")" : "");
	in->hint = h.s;
}

void
snipin_free(struct snipin *in)
{
	free(in->field);
	free(in->call);
	free(in->hint);
}

static int
dotted(const char *s)
{
	int start = 1;

	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++) {
		if (*s == '.') {
			if (start)
				return 0;
			start = 1;
			continue;
		}
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		    (*s >= 'A' && *s <= 'Z') || (unsigned char)*s >= 0x80 ||
		    (!start && *s >= '0' && *s <= '9')))
			return 0;
		start = 0;
	}
	return !start;
}

void
snipin_check(const struct snipcfg *c, struct sdiags *d)
{
	const struct ynode *in = ymap_get(c->root, "inputs");
	size_t i;

	if (in == NULL || in->type == Y_NULL)
		return;
	if (in->type != Y_MAP) {
		sdiag_add(d, SD_ERROR, in, "input", "inputs must be a mapping"
		    " of the copied function's parameters, not %s",
		    ytype_name(in));
		return;
	}
	for (i = 0; i < in->n; i++)
		check_entry(c, in->v[2 * i], in->v[2 * i + 1], d);
}

static void
check_entry(const struct snipcfg *c, const struct ynode *k,
    const struct ynode *e, struct sdiags *d)
{
	static const char *const forms[] = {
		"from", "shape", "value", "call", NULL
	};
	static const char *const known[] = {
		"from", "shape", "dtype", "value", "call", "kwargs", NULL
	};
	const struct ynode *v, *form = NULL, *key;
	const char *name, *which = NULL;
	char *kname = py_str(k);
	size_t i, nforms = 0;
	int64_t elements = 1, size;

	name = kname;
	if (e->type != Y_MAP) {
		sdiag_add(d, SD_ERROR, e, "input", "inputs.%s must be a mapping"
		    " with one of from, shape, value or call, not %s", name,
		    ytype_name(e));
		free(kname);
		return;
	}
	for (i = 0; i < e->n; i++) {
		key = e->v[2 * i];
		if (key->type != Y_STR || !in_list(key->s, known)) {
			char *ks = py_str(key);

			sdiag_add(d, SD_WARNING, key, "unknown-key", "unknown"
			    " key 'inputs.%s.%s' is ignored by prepare()", name,
			    ks);
			free(ks);
		}
	}
	for (i = 0; forms[i] != NULL; i++)
		if ((v = ymap_key(e, forms[i])) != NULL) {
			if (nforms++ == 0) {
				form = v;
				which = forms[i];
			} else
				sdiag_add(d, SD_ERROR, v, "input", "inputs.%s:"
				    " one of from, shape, value or call, not"
				    " both %s and %s", name, which, forms[i]);
		}
	if (nforms == 0) {
		sdiag_add(d, SD_ERROR, e, "input", "inputs.%s: give one of"
		    " from, shape, value or call", name);
		free(kname);
		return;
	}
	v = ymap_get(e, which);
	if (v->type == Y_NULL) {
		if (strcmp(which, "from") == 0)
			sdiag_add(d, SD_ERROR, form, "input-unset", "inputs.%s."
			    "from is unset: name the record field %s comes"
			    " from (image, path, bytes, id, record or"
			    " metadata.KEY)", name, name);
		else if (strcmp(which, "shape") == 0)
			sdiag_add(d, SD_ERROR, form, "input-unset", "inputs.%s."
			    "shape is unset: give the shape of the tensor"
			    " prepare() makes for %s, such as [1, 3, 640,"
			    " 640]", name, name);
		else if (strcmp(which, "value") == 0)
			sdiag_add(d, SD_ERROR, form, "input-unset", "inputs.%s."
			    "value is unset: write the value prepare() gives"
			    " %s", name, name);
		else
			sdiag_add(d, SD_ERROR, form, "input-unset", "inputs.%s."
			    "call is unset: name what makes %s (a class or"
			    " function that target.py imports) and give its"
			    " kwargs", name, name);
		free(kname);
		return;
	}
	if (strcmp(which, "from") == 0) {
		if (v->type != Y_STR)
			sdiag_add(d, SD_ERROR, v, "input", "inputs.%s.from must"
			    " be a string, not %s", name, ytype_name(v));
		else
			check_field(c, name, v, d);
	} else if (strcmp(which, "shape") == 0) {
		if (v->type != Y_SEQ && v->type != Y_TUPLE)
			sdiag_add(d, SD_ERROR, v, "input", "inputs.%s.shape must"
			    " be a list of sizes, not %s", name, ytype_name(v));
		else
			for (i = 0; i < v->n; i++) {
				size = v->v[i]->i;
				if (v->v[i]->type != Y_INT || v->v[i]->big ||
				    size < 0) {
					sdiag_add(d, SD_ERROR, v->v[i], "input",
					    "inputs.%s.shape: a size is an"
					    " integer of 0 or more", name);
					break;
				}
				if (size > 0 && elements > MAX_ELEMENTS / size)
					elements = MAX_ELEMENTS + 1;
				else
					elements *= size;
			}
		if (elements > MAX_ELEMENTS)
			sdiag_add(d, SD_ERROR, v, "input", "inputs.%s.shape"
			    " holds more than %" PRId64 " elements", name,
			    MAX_ELEMENTS);
		v = ymap_get(e, "dtype");
		if (v != NULL && (v->type != Y_STR ||
		    !in_list(v->s, snipin_dtypes)))
			sdiag_add(d, SD_ERROR, v, "input", "inputs.%s.dtype is"
			    " one of float32, float16, bfloat16, float64,"
			    " int64, int32, int16, int8, uint8 or bool", name);
	} else if (strcmp(which, "call") == 0) {
		if (v->type != Y_STR || !dotted(v->s))
			sdiag_add(d, SD_ERROR, v, "input", "inputs.%s.call must"
			    " be a name target.py imports, such as"
			    " ObjectDetectionModel", name);
		v = ymap_get(e, "kwargs");
		if (v == NULL || v->type == Y_NULL)
			sdiag_add(d, SD_ERROR, v != NULL ? v : form,
			    "input-unset", "inputs.%s.kwargs is unset: give the"
			    " keyword arguments of the call that makes %s ({}"
			    " for none)", name, name);
		else if (v->type != Y_MAP)
			sdiag_add(d, SD_ERROR, v, "input", "inputs.%s.kwargs"
			    " must be a mapping, not %s", name, ytype_name(v));
	}
	free(kname);
}

/* Whether the data source supplies the record field v names. */
static void
check_field(const struct snipcfg *c, const char *name, const struct ynode *v,
    struct sdiags *d)
{
	static const char *const fields[] = {
		"image", "path", "bytes", "id", "record", NULL
	};
	static const char *const dummy_meta[] = {
		"tensor", "scores", "boxes", NULL
	};
	const struct ynode *p;
	const char *f = v->s, *ds = c->ds_name;
	int dummy, images;

	if (strncmp(f, "metadata.", 9) != 0 && !in_list(f, fields)) {
		sdiag_add(d, SD_ERROR, v, "input", "inputs.%s.from: '%s' is no"
		    " record field (image, path, bytes, id, record or"
		    " metadata.KEY)", name, f);
		return;
	}
	if (ds == NULL)
		return;
	dummy = strcmp(ds, "dummy") == 0;
	images = strcmp(ds, "images") == 0;
	if (dummy && (strcmp(f, "path") == 0 || strcmp(f, "bytes") == 0))
		sdiag_add(d, SD_ERROR, v, "input-source", "inputs.%s: the dummy"
		    " data source has no %s: use the images data source"
		    " (snip-new -i DIR) with a directory of image files", name,
		    strcmp(f, "path") == 0 ? "file path" : "encoded bytes");
	else if (dummy && strncmp(f, "metadata.", 9) == 0 &&
	    !in_list(f + 9, dummy_meta))
		sdiag_add(d, SD_ERROR, v, "input-source", "inputs.%s: the dummy"
		    " data source's metadata holds tensor, scores and boxes,"
		    " not %s: give %s a shape and dtype instead", name, f + 9,
		    name);
	else if (images && strncmp(f, "metadata.", 9) == 0)
		sdiag_add(d, SD_ERROR, v, "input-source", "inputs.%s: the"
		    " images data source's records have no metadata: give %s"
		    " a shape and dtype, or use the dummy data source", name,
		    name);
	else if (strcmp(f, "image") == 0 && dummy &&
	    (p = ymap_get(c->params, "include_image")) != NULL && !py_bool(p))
		sdiag_add(d, SD_ERROR, v, "input-source", "inputs.%s: the dummy"
		    " data source makes no image with include_image false",
		    name);
	else if (strcmp(f, "image") == 0 && images &&
	    (p = ymap_get(c->params, "decode")) != NULL && !py_bool(p))
		sdiag_add(d, SD_ERROR, v, "input-source", "inputs.%s: the"
		    " images data source decodes no image with decode false:"
		    " take the path or the bytes instead", name);
}
