#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "snippet/pyenv.h"
#include "snippet/snipcfg.h"
#include "snippet/snipout.h"
#include "snippet/snipplan.h"
#include "snippet/snipwrite.h"

static void	imports(struct snip *, struct strbuf *, struct strbuf *,
		    struct strbuf *);
static void	put_import(const struct snip *, size_t, struct strbuf *,
		    struct strbuf *);
static void	coding(const struct pysrc *, struct strbuf *);
static int	is_utf8_name(const char *, size_t);
static void	copy_def(const struct snip *, struct strbuf *);
static void	put_argument(const struct snip *, size_t, struct strbuf *);
static void	target_class(const struct snip *, struct strbuf *);
static void	inputs_yaml(const struct snip *, struct strbuf *);

/*
 * The generic part of a target that reads config.yaml's inputs, in pieces
 * of the length C promises a string literal.
 */
static const char *const input_methods[] = {
"    # What prepare() gives the arguments: config.yaml's inputs section.\n"
"    # The runner passes the target no config, so it is the config.yaml\n"
"    # beside this file, read once.\n"
"\n"
"    def _spec(self, name: str) -> dict[str, Any]:\n"
"        if self._inputs is None:\n"
"            import yaml\n"
"            from pathlib import Path\n"
"\n"
"            path = Path(__file__).with_name(\"config.yaml\")\n"
"            with open(path, encoding=\"utf-8\") as f:\n"
"                self._inputs = (yaml.safe_load(f) or {}).get(\"inputs\") or {}\n"
"        spec = self._inputs.get(name)\n"
"        if not isinstance(spec, dict):\n"
"            raise ValueError(f\"config.yaml: inputs.{name} is missing;\"\n"
"                             \" snip-lint checks the section\")\n"
"        return spec\n"
"\n"
"    def _input(self, name: str, record: Any, device: Any,\n"
"               want: str = \"any\") -> Any:\n"
"        spec = self._spec(name)\n"
"        form = next((k for k in (\"from\", \"shape\", \"value\", \"call\")\n"
"                     if k in spec), \"from\")\n"
"        if spec.get(form) is None:\n"
"            raise ValueError(f\"config.yaml: inputs.{name}.{form} is unset;\"\n"
"                             \" snip-lint says what it needs\")\n"
"        if form == \"value\":\n"
"            return spec[\"value\"]\n"
"        if form == \"call\":\n"
"            return self._object(name, spec)\n"
"        if form == \"shape\":\n"
"            return self._placed(self._tensor(name, spec, record), device, want)\n"
"        return self._placed(self._field(name, str(spec[\"from\"]), record),\n"
"                            device, want)\n"
"\n"
"    def _field(self, name: str, field: str, record: Any) -> Any:\n"
"        if field == \"record\":\n"
"            return record\n"
"        if field == \"id\":\n"
"            return record.id\n"
"        if field in (\"path\", \"bytes\") and record.path is not None:\n"
"            return record.path.read_bytes() if field == \"bytes\" else record.path\n"
"        if field == \"image\" and record.image is not None:\n"
"            return record.image\n"
"        key = field.partition(\"metadata.\")[2]\n"
"        if field.startswith(\"metadata.\") and key in record.metadata:\n"
"            return record.metadata[key]\n"
"        raise ValueError(f\"inputs.{name}: record {record.id} has no {field}\"\n"
"                         \" (the images data source has a path and, with\"\n"
"                         \" decode, an image; dummy has metadata tensor,\"\n"
"                         \" scores and boxes)\")\n"
"\n",
"    def _tensor(self, name: str, spec: dict[str, Any], record: Any) -> Any:\n"
"        import zlib\n"
"\n"
"        import torch\n"
"\n"
"        dtype = getattr(torch, str(spec.get(\"dtype\") or \"float32\"))\n"
"        shape = [int(d) for d in spec[\"shape\"]]\n"
"        # The same values for a record id in every pass and every run.\n"
"        gen = torch.Generator().manual_seed(\n"
"            zlib.crc32(f\"{name} {record.id}\".encode()))\n"
"        if dtype.is_floating_point:\n"
"            return torch.rand(shape, generator=gen).to(dtype)\n"
"        if dtype == torch.bool:\n"
"            return torch.rand(shape, generator=gen) < 0.5\n"
"        return torch.randint(0, 128, shape, generator=gen).to(dtype)\n"
"\n"
"    def _placed(self, value: Any, device: Any, want: str) -> Any:\n"
"        \"\"\"value as the copy takes it; a tensor on the run's device.\"\"\"\n"
"        import numpy as np\n"
"        import torch\n"
"\n"
"        if want == \"str\":\n"
"            return str(value)\n"
"        if want.startswith(\"list-\"):\n"
"            return [self._placed(value, device, want[5:])]\n"
"        if want == \"numpy\" and isinstance(value, torch.Tensor):\n"
"            value = value.detach().cpu().numpy()\n"
"        if isinstance(value, np.ndarray):\n"
"            # torch.from_numpy() and in-place work need both; the dtype\n"
"            # stays.\n"
"            value = np.ascontiguousarray(value)\n"
"            if not value.flags.writeable:\n"
"                value = value.copy()\n"
"            if want == \"torch\":\n"
"                value = torch.from_numpy(value)\n"
"        if isinstance(value, torch.Tensor) and want != \"numpy\":\n"
"            value = value.to(device)\n"
"        return value\n"
"\n"
"    def _object(self, name: str, spec: dict[str, Any]) -> Any:\n"
"        if name not in self._objects:\n"
"            kwargs = spec.get(\"kwargs\")\n"
"            if not isinstance(kwargs, dict):\n"
"                raise ValueError(f\"config.yaml: inputs.{name}.kwargs is unset;\"\n"
"                                 \" snip-lint says what it needs\")\n"
"            self._objects[name] = self._named(str(spec[\"call\"]))(**kwargs)\n"
"        return self._objects[name]\n"
"\n",
	NULL
};

/* Finds a name target.py imports, by its dotted spelling. */
static const char named_method[] =
"    @staticmethod\n"
"    def _named(dotted: str) -> Any:\n"
"        import builtins\n"
"\n"
"        head, _, rest = dotted.partition(\".\")\n"
"        value = globals().get(head, getattr(builtins, head, None))\n"
"        if value is None:\n"
"            raise ValueError(f\"{dotted}: target.py imports no {head}\")\n"
"        for part in rest.split(\".\") if rest else ():\n"
"            value = getattr(value, part)\n"
"        return value\n"
"\n";

/*
 * The source's module-level imports, relative ones made absolute; a
 * "from __future__" import goes to future, which must come first.  The
 * import blocks plan_import_blocks() chose go to blocks, whole.
 */
static void
imports(struct snip *sn, struct strbuf *future, struct strbuf *out,
    struct strbuf *blocks)
{
	const struct pysrc *s = sn->s;
	size_t i, k, b = 0;

	for (i = 0; i < s->nstmt; i++) {
		const struct pystmt *st = &s->stmt[i];

		if (b < sn->nblk && sn->blk[b].first == i) {
			for (k = i; k <= sn->blk[b].last; k++) {
				if (plan_is_import(s, k))
					put_import(sn, k, future, blocks);
				else
					pysrc_copy_lines(s, s->stmt[k].first,
					    s->stmt[k].last, "", "", "",
					    &blocks->s, &blocks->len,
					    &blocks->cap);
			}
			i = sn->blk[b++].last;
			continue;
		}
		if (!plan_is_import(s, i))
			continue;
		if (st->cols == 0)
			put_import(sn, i, future, out);
		else if (pysrc_enclosing(s, st->first, st->first) < 0 &&
		    !(sn->mod_first != 0 && st->first >= sn->mod_first &&
		    st->first <= sn->mod_last))
			sb_printf(&sn->skipped, "%s%u",
			    sn->skipped.len ? ", " : "", st->first);
	}
}

/*
 * Import statement i, at its own indentation, a relative one made
 * absolute; "from __future__" to future.
 */
static void
put_import(const struct snip *sn, size_t i, struct strbuf *future,
    struct strbuf *out)
{
	const struct pysrc *s = sn->s;
	const struct pystmt *st = &s->stmt[i];
	const struct pyline *ll = &s->line[st->last];
	const struct pyline *fl = &s->line[st->first];
	size_t t = st->tok + 1, end = st->tok + st->ntok, n;
	const char *tx;
	char *pkg, *dot;
	int level = 0;

	if (pysrc_tok_is(s, st->tok, "from")) {
		for (; t < end && (pysrc_tok_is(s, t, ".") ||
		    pysrc_tok_is(s, t, "...")); t++)
			level += (int)s->tok[t].len;
		if (t < end && pysrc_tok_is(s, t, "__future__")) {
			pysrc_copy_lines(s, st->first, st->last, "", "", "",
			    &future->s, &future->len, &future->cap);
			return;
		}
	}
	if (level == 0) {
		pysrc_copy_lines(s, st->first, st->last, "", "", "", &out->s,
		    &out->len, &out->cap);
		return;
	}
	/* from ..x import y: the package, less level - 1 parts. */
	pkg = xstrdup(sn->module);
	if (strcmp(sn->file + strlen(sn->file) - (strlen(sn->file) >= 11 ?
	    11 : 0), "__init__.py") != 0)
		level++;
	for (; level > 1 && (dot = strrchr(pkg, '.')) != NULL; level--)
		*dot = '\0';
	sb_printf(out, "%.*sfrom %s", (int)fl->ws, s->text + fl->off,
	    level > 1 ? "" : pkg);
	free(pkg);
	for (; t < end && !pysrc_tok_is(s, t, "import"); t++) {
		tx = pysrc_tok(s, t, &n);
		sb_printf(out, ".%.*s", (int)n, tx);
	}
	if (t == end)
		return;
	tx = pysrc_tok(s, t, &n);
	sb_printf(out, " %.*s\n", (int)(ll->off + ll->len - s->tok[t].off),
	    tx);
}

/*
 * The source's encoding declaration (PEP 263: a comment on line 1, or on
 * line 2 after a comment or blank line 1, matching
 * coding[:=][ \t]*([-\w.]+)), written as target.py's first line unless it
 * names UTF-8, Python's default: the copied bytes are in that encoding.
 */
static void
coding(const struct pysrc *s, struct strbuf *b)
{
	uint32_t k;
	size_t i, j, n;
	const char *t, *name;

	for (k = 1; k <= 2 && k <= s->nline; k++) {
		t = s->text + s->line[k].off;
		n = s->line[k].len;
		for (i = 0; i < n && (t[i] == ' ' || t[i] == '\t' ||
		    t[i] == '\f'); i++)
			;
		if (i == n)
			continue;
		if (t[i] != '#')
			return;
		for (j = i; j + 6 < n; j++) {
			if (memcmp(t + j, "coding", 6) != 0 ||
			    (t[j + 6] != ':' && t[j + 6] != '='))
				continue;
			for (name = t + j + 7; name < t + n &&
			    (*name == ' ' || *name == '\t'); name++)
				;
			for (i = 0; name + i < t + n && (name[i] == '-' ||
			    name[i] == '_' || name[i] == '.' ||
			    isalnum((unsigned char)name[i])); i++)
				;
			if (i == 0)
				continue;
			if (!is_utf8_name(name, i))
				sb_printf(b, "# -*- coding: %.*s -*-\n", (int)i,
				    name);
			return;
		}
	}
}

/* Whether an encoding name is UTF-8 as CPython normalises it. */
static int
is_utf8_name(const char *name, size_t n)
{
	char low[8];
	size_t i;

	if (n < 4)
		return 0;
	for (i = 0; i < n && i < sizeof(low); i++)
		low[i] = name[i] == '_' ? '-' :
		    (char)tolower((unsigned char)name[i]);
	if (n == 4 && memcmp(low, "utf8", 4) == 0)
		return 1;
	return n >= 5 && memcmp(low, "utf-8", 5) == 0 &&
	    (n == 5 || low[5] == '-');
}

void
snipw_target(struct snip *sn, struct strbuf *b)
{
	const struct pysrc *s = sn->s;
	const struct pydef *f = sn->f;
	struct strbuf future = { 0 }, imp = { 0 }, blocks = { 0 };
	size_t i;

	imports(sn, &future, &imp, &blocks);
	coding(s, b);
	sb_puts(b, "\"\"\"Profiling target for ");
	snip_py_text(b, f->qualname);
	sb_puts(b, ".\n\nCopied from ");
	snip_py_text(b, s->name);
	sb_printf(b, " lines %u-%u by snip-new;\nREADME.md says where the code"
	    " comes from and what was assumed.  The\nproduction module is"
	    " imported, never edited.\n\"\"\"\n", sn->first_line,
	    sn->last_line);
	if (future.len > 0)
		sb_put(b, future.s, future.len);
	sb_puts(b, "\n");
	if (f->type == PD_ASYNC)
		sb_puts(b, "import asyncio\n");
	sb_puts(b, "from typing import Any\n\nfrom development.profiling.nvtx"
	    " import profiling_range_if_cuda\n\n");
	if (imp.len > 0) {
		sb_printf(b, "# The imports of %s, relative ones made"
		    " absolute.\n", sn->module);
		sb_put(b, imp.s, imp.len);
		sb_puts(b, "\n");
	}
	if (sn->nhelpers > 0) {
		struct strbuf line = { 0 };

		sb_puts(b, "# Helpers stay in their production module.\n");
		sb_printf(&line, "from %s import ", sn->module);
		for (i = 0; i < sn->nhelpers; i++)
			sb_printf(&line, "%s%s", i > 0 ? ", " : "",
			    sn->helpers[i]);
		if (line.len <= 79)
			sb_printf(b, "%s\n", line.s);
		else {
			sb_printf(b, "from %s import (\n", sn->module);
			for (i = 0; i < sn->nhelpers; i++)
				sb_printf(b, "    %s,\n", sn->helpers[i]);
			sb_puts(b, ")\n");
		}
		sb_puts(b, "\n");
		free(line.s);
	}
	if (blocks.len > 0) {
		sb_printf(b, "# Import blocks of %s that the copy needs, copied"
		    " whole.\n", sn->module);
		sb_put(b, blocks.s, blocks.len);
		sb_puts(b, "\n");
	}
	sb_printf(b, "# The device the NVTX ranges below are recorded for;"
	    " prepare() sets it.\n%s: Any = None\n\n\n", sn->devvar);
	sb_puts(b, "# Copied from ");
	snip_py_text(b, s->name);
	sb_printf(b, " lines %u-%u", sn->first_line, sn->last_line);
	sb_puts(b, sn->nreg > 0 ? "; NVTX ranges added.\n" : ".\n");
	copy_def(sn, b);
	sb_puts(b, "\n\n");
	target_class(sn, b);
	free(future.s);
	free(imp.s);
	free(blocks.s);
}

/*
 * The def, dedented to column 0 (never inside a string), decorators that
 * need a class left out, and each region inside a profiling range.
 */
static void
copy_def(const struct snip *sn, struct strbuf *b)
{
	const struct pysrc *s = sn->s;
	/* The text, as plan_patch_method() left it; the same lines. */
	const struct pysrc *c = sn->patched != NULL ? sn->patched : s;
	const struct pydef *f = sn->f;
	uint32_t k, last;
	size_t r = 0, i;

	for (k = f->decorator; k < f->line; ) {
		i = s->line[k].stmt;
		if (i != UINT32_MAX && plan_dropped_decorator(s, i)) {
			k = s->stmt[i].last + 1;
			continue;
		}
		pysrc_copy_lines(c, k, k, sn->strip, "", "", &b->s, &b->len,
		    &b->cap);
		k++;
	}
	last = s->stmt[s->line[f->end].stmt].last;
	for (k = f->line; k <= last; ) {
		if (r < sn->nreg && sn->reg[r].first == k) {
			const struct region *g = &sn->reg[r++];

			sb_printf(b, "%swith profiling_range_if_cuda(\"%s\","
			    " device=%s):\n", g->base, g->label, sn->devvar);
			pysrc_copy_lines(c, g->first, g->last, sn->strip,
			    g->base, sn->unit, &b->s, &b->len, &b->cap);
			k = g->last + 1;
			continue;
		}
		pysrc_copy_lines(c, k, k, sn->strip, "", "", &b->s, &b->len,
		    &b->cap);
		k++;
	}
}

/* How prepare() writes the argument of parameter i. */
static void
put_argument(const struct snip *sn, size_t i, struct strbuf *b)
{
	const struct snipin *in = &sn->in[i];

	if (in->kind == SI_DEVICE)
		sb_puts(b, "device");
	else if (sn->method == M_CLASS && i == 0)
		sb_printf(b, "self._named(\"%s\")", sn->owner);
	else if (strcmp(in->want, "any") == 0)
		sb_printf(b, "self._input(\"%s\", record, device)",
		    sn->par[i].name);
	else
		sb_printf(b, "self._input(\"%s\", record, device, \"%s\")",
		    sn->par[i].name, in->want);
}

static void
target_class(const struct snip *sn, struct strbuf *b)
{
	const struct pydef *f = sn->f;
	size_t i;
	int any = 0;

	sb_printf(b, "class %s:\n    \"\"\"Runs the copied %s on one data"
	    " record per call.\"\"\"\n\n    name = \"%s\"\n\n", sn->tclass,
	    f->name, sn->profile);
	if (sn->nin > 0)
		sb_puts(b, "    def __init__(self) -> None:\n"
		    "        self._inputs: Any = None\n"
		    "        self._objects: dict[str, Any] = {}\n\n");
	sb_printf(b, "    def prepare(self, record: Any, *, device: Any) -> Any:\n"
	    "        global %s\n        %s = device\n", sn->devvar, sn->devvar);
	sb_puts(b, "        args = (");
	for (i = 0; i < sn->npar; i++) {
		const struct param *p = &sn->par[i];
		const struct snipin *in = &sn->in[i];

		if (p->kind != P_POS || in->kind == SI_DEFAULT ||
		    (in->kind == SI_NONE && !(sn->method == M_CLASS &&
		    i == 0)) || (in->kind == SI_DEVICE && p->has_default))
			continue;
		sb_puts(b, "\n            ");
		put_argument(sn, i, b);
		sb_puts(b, ",");
		any = 1;
	}
	sb_puts(b, any ? "\n        )\n" : ")\n");
	any = 0;
	sb_puts(b, "        kwargs = {");
	for (i = 0; i < sn->npar; i++) {
		const struct param *p = &sn->par[i];
		const struct snipin *in = &sn->in[i];

		if (in->kind == SI_DEFAULT || in->kind == SI_NONE ||
		    !(p->kind == P_KWONLY || (in->kind == SI_DEVICE &&
		    p->has_default)))
			continue;
		sb_printf(b, "\n            \"%s\": ", p->name);
		put_argument(sn, i, b);
		sb_puts(b, ",");
		any = 1;
	}
	sb_puts(b, any ? "\n        }\n" : "}\n");
	sb_puts(b, "        return args, kwargs\n\n"
	    "    def run(self, prepared: Any) -> Any:\n"
	    "        args, kwargs = prepared\n");
	/* An async generator is no coroutine: asyncio.run() refuses it. */
	if (f->type == PD_ASYNC && sn->yields)
		sb_printf(b, "\n        async def collect() -> list[Any]:\n"
		    "            return [item async for item in %s(*args,"
		    " **kwargs)]\n\n        return asyncio.run(collect())\n",
		    f->name);
	else if (f->type == PD_ASYNC)
		sb_printf(b, "        return asyncio.run(%s(*args, **kwargs))\n",
		    f->name);
	else if (sn->yields)
		sb_printf(b, "        return list(%s(*args, **kwargs))\n",
		    f->name);
	else
		sb_printf(b, "        return %s(*args, **kwargs)\n", f->name);
	sb_puts(b, "\n    def validate(self, output: Any) -> None:\n");
	if (sn->returns || sn->yields)
		sb_printf(b, "        if output is None:\n"
		    "            raise ValueError(\"%s returned None\")\n",
		    f->name);
	else
		sb_printf(b, "        # %s returns nothing; there is no output to"
		    " check.\n        return None\n", f->name);
	sb_printf(b, "\n    def summarize(self, output: Any) -> dict[str, Any]:\n"
	    "        \"\"\"A small, manifest-safe description of the output."
	    "\"\"\"\n"
	    "        summary: dict[str, Any] = {\"type\":"
	    " type(output).__name__}\n"
	    "        shape = getattr(output, \"shape\", None)\n"
	    "        if shape is not None:\n"
	    "            summary[\"shape\"] = [int(d) for d in shape]\n"
	    "            summary[\"dtype\"] = str(getattr(output, \"dtype\","
	    " \"\"))\n"
	    "        elif isinstance(output, (list, tuple, dict)):\n"
	    "            summary[\"len\"] = len(output)\n"
	    "        elif isinstance(output, (bool, int, float, str)):\n"
	    "            summary[\"value\"] = output\n"
	    "        return summary\n\n");
	for (i = 0; sn->nin > 0 && input_methods[i] != NULL; i++)
		sb_puts(b, input_methods[i]);
	if (sn->nin > 0 || sn->method == M_CLASS)
		sb_puts(b, named_method);
	b->len -= 1;
	sb_printf(b, "\n\n%s = %s()\n", sn->tvar, sn->tclass);
}

void
snipw_config(const struct snip *sn, struct strbuf *b)
{
	struct snipconf c = { sn->profile, NULL, sn->device, NULL, NULL, 10,
	    100 };
	struct strbuf ip = { 0 }, p = { 0 };
	char cwd[PATH_MAX], *images = NULL;
	const char *home = getenv("HOME");

	sb_printf(&ip, "%s:%s", sn->target, sn->tvar);
	c.import_path = ip.s;
	if (sn->images != NULL) {
		/* The runner expands neither "~" nor a relative path well. */
		if (strncmp(sn->images, "~/", 2) == 0 && home != NULL)
			sb_printf(&p, "%s/%s", home, sn->images + 2);
		else if (sn->images[0] != '/' &&
		    getcwd(cwd, sizeof(cwd)) != NULL)
			sb_printf(&p, "%s/%s", cwd, sn->images);
		else
			sb_puts(&p, sn->images);
		c.images = images = snip_path(p.s);
	}
	if (strcmp(sn->odir, SNIP_DEFAULT_DIR) != 0)
		c.output_dir = sn->odir;
	snip_config_yaml(b, &c);
	if (sn->nin > 0)
		inputs_yaml(sn, b);
	free(images);
	free(ip.s);
	free(p.s);
}

/* The inputs section: see snipin.h. */
static void
inputs_yaml(const struct snip *sn, struct strbuf *b)
{
	size_t i;

	sb_printf(b, "# What prepare() gives each argument of %s; target.py"
	    " reads this\n# section, the runner ignores it.  from: a field of"
	    " the data source's\n# record (image, path, bytes, id, record,"
	    " metadata.KEY); shape and dtype:\n# a tensor of random values,"
	    " the same for a record id; value: as written;\n# call and kwargs:"
	    " an object made once by calling a name target.py\n# imports."
	    "  null is unset: prepare() refuses to run and snip-lint says so.\n"
	    "inputs:\n", sn->f->name);
	for (i = 0; i < sn->npar; i++) {
		const struct snipin *in = &sn->in[i];

		if (in->kind == SI_NONE || in->kind == SI_DEFAULT ||
		    in->kind == SI_DEVICE)
			continue;
		sb_puts(b, "  ");
		snip_yaml_scalar(b, sn->par[i].name);
		sb_puts(b, ":\n");
		switch (in->kind) {
		case SI_FIELD:
			sb_puts(b, "    from: ");
			snip_yaml_scalar(b, in->field);
			break;
		case SI_TENSOR:
			sb_puts(b, "    shape: null");
			break;
		case SI_VALUE:
			sb_puts(b, "    value: null");
			break;
		case SI_OBJECT:
			sb_puts(b, "    call: ");
			if (in->call != NULL)
				snip_yaml_scalar(b, in->call);
			else
				sb_puts(b, "null");
			break;
		}
		if (in->hint != NULL) {
			sb_puts(b, "  # ");
			snip_yaml_comment(b, in->hint);
		}
		sb_puts(b, "\n");
		if (in->kind == SI_TENSOR)
			sb_puts(b, "    dtype: float32\n");
		if (in->kind == SI_OBJECT)
			sb_puts(b, in->kwargs_set ? "    kwargs: {}\n" :
			    "    kwargs: null\n");
	}
}

