/*
 * snipout: a snippet's files as snip-new writes them: the escapes of what
 * they quote, config.yaml's runner settings, and the folder written whole.
 * See snipout.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "io/publish.h"
#include "snippet/snipout.h"

static int	yaml_plain(const char *);
static size_t	make_dirs(const char *, char ***);

/*
 * s as a Markdown code span: a fence longer than any run of backticks in
 * it, padded when it would lose a space or touch a backtick; a control
 * character, which could end the paragraph, as U+FFFD.
 */
void
snip_md_code(struct strbuf *b, const char *s)
{
	size_t run = 0, longest = 0, i, n = strlen(s);
	int pad;

	for (i = 0; i < n; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	pad = longest > 0 || (n > 0 && (s[0] == ' ' || s[n - 1] == ' '));
	for (i = 0; i <= longest; i++)
		sb_puts(b, "`");
	if (pad)
		sb_puts(b, " ");
	for (i = 0; i < n; i++) {
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			sb_puts(b, "\xef\xbf\xbd");
		else
			sb_put(b, s + i, 1);
	}
	if (pad)
		sb_puts(b, " ");
	for (i = 0; i <= longest; i++)
		sb_puts(b, "`");
}

/*
 * s as Markdown text in the middle of a line: each character that could
 * start inline syntax there (emphasis, code, links, HTML, entities,
 * strikethrough) escaped with a backslash, a control character, which
 * could end the paragraph, as a space.
 */
void
snip_md_text(struct strbuf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			sb_puts(b, " ");
		else if (strchr("\\`*_[]<>&~", *s) != NULL)
			sb_printf(b, "\\%c", *s);
		else
			sb_put(b, s, 1);
	}
}

/*
 * s for a Python comment or docstring: printable ASCII as it is, but for
 * backslash and '"', which are escaped, and every other byte as \xNN, so
 * that no name from the source can end the comment or the string.
 */
void
snip_py_text(struct strbuf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\' || c == '"')
			sb_printf(b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			sb_printf(b, "\\x%02x", c);
		else
			sb_put(b, s, 1);
	}
}

/*
 * 1 when PyYAML reads s back as the same string unquoted: no YAML 1.1
 * boolean, null or number, nothing that starts an indicator.
 */
static int
yaml_plain(const char *s)
{
	static const char *const words[] = {
		"y", "n", "yes", "no", "true", "false", "on", "off", "null",
		NULL
	};
	char low[8];
	size_t i, n = strlen(s);

	if (n == 0 || strchr("0123456789-.:+~", s[0]) != NULL ||
	    s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_./:-")] != '\0')
		return 0;
	if (n < sizeof(low)) {
		for (i = 0; i <= n; i++)
			low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ?
			    s[i] - 'A' + 'a' : s[i]);
		for (i = 0; words[i] != NULL; i++)
			if (strcmp(low, words[i]) == 0)
				return 0;
	}
	return 1;
}


void
snip_yaml_scalar(struct strbuf *b, const char *s)
{
	if (yaml_plain(s)) {
		sb_puts(b, s);
		return;
	}
	sb_puts(b, "\"");
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sb_printf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			sb_printf(b, "\\x%02x", c);
		else
			sb_put(b, s, 1);
	}
	sb_puts(b, "\"");
}

/* s for a YAML comment: a line break or control character as a space. */
void
snip_yaml_comment(struct strbuf *b, const char *s)
{
	for (; *s != '\0'; s++)
		sb_put(b, (unsigned char)*s < 0x20 || *s == 0x7f ? " " : s, 1);
}

/*
 * The runner's settings as the profiling skill's template gives them:
 * eager loading, seed 0, the default capture range and the five CUDA
 * synchronization flags.
 */
void
snip_config_yaml(struct strbuf *b, const struct snipconf *c)
{
	sb_puts(b, "profile_name: ");
	snip_yaml_scalar(b, c->profile);
	sb_puts(b, "\ntarget:\n  name: ");
	snip_yaml_scalar(b, c->profile);
	sb_puts(b, "\n  import_path: ");
	snip_yaml_scalar(b, c->import_path);
	sb_puts(b, "\n  profile_prepare: false\ndata_source:\n");
	if (c->images == NULL)
		sb_puts(b, "  name: dummy            # or: images +"
		    " directory/decode/limit/repeat\n");
	else {
		sb_puts(b, "  name: images\n  directory: ");
		snip_yaml_scalar(b, c->images);
		/* The skill's template: the first 4 images, cycled. */
		sb_puts(b, "\n  decode: true\n  limit: 4\n  repeat: 100\n");
	}
	sb_puts(b, "device: ");
	snip_yaml_scalar(b, c->device);
	sb_printf(b, "\nwarmup: %d\niterations: %d\nrecord_loading: eager\n"
	    "seed: 0\ncapture_range: profile-target\n", c->warmup,
	    c->iterations);
	if (c->output_dir != NULL) {
		sb_puts(b, "output_dir: ");
		snip_yaml_scalar(b, c->output_dir);
		sb_puts(b, "\n");
	}
	sb_puts(b, "cuda: {synchronize_before_warmup: true,"
	    " synchronize_after_warmup: true,\n"
	    "       synchronize_before_capture: true,"
	    " synchronize_after_capture: true,\n"
	    "       synchronize_each_iteration: false}\n");
}

int
snip_replace_files(const struct snipfiles *f)
{
	const char *path[] = { f->target, f->config, f->readme };
	const struct strbuf *b[] = { f->py, f->cfg, f->md };
	char *tmp[3] = { NULL, NULL, NULL };
	mode_t mode = publish_mode();
	int i, rc = 0;

	for (i = 0; i < 3 && rc == 0; i++)
		if ((tmp[i] = publish_stage(path[i], b[i]->s, b[i]->len,
		    mode)) == NULL)
			rc = -1;
	for (i = 0; i < 3 && rc == 0; i++) {
		if (publish_commit(tmp[i], path[i]) != 0)
			rc = -1;
		free(tmp[i]);
		tmp[i] = NULL;
	}
	for (i = 0; i < 3; i++) {
		if (tmp[i] != NULL)
			unlink(tmp[i]);
		free(tmp[i]);
	}
	return rc;
}

int
snip_new_folder(const struct snipfiles *f)
{
	struct strbuf tmp = { 0 }, t = { 0 }, c = { 0 }, r = { 0 };
	char **made;
	size_t nmade, i;
	mode_t mode;
	int ok;

	nmade = make_dirs(f->odir, &made);
	sb_printf(&tmp, "%s/.%s.XXXXXX", f->odir, f->profile);
	ok = mkdtemp(tmp.s) != NULL;
	if (!ok)
		warnmsg("%s:", tmp.s);
	else {
		sb_printf(&t, "%s/target.py", tmp.s);
		sb_printf(&c, "%s/config.yaml", tmp.s);
		sb_printf(&r, "%s/README.md", tmp.s);
		mode = publish_mode();
		ok = publish_file(t.s, f->py->s, f->py->len, mode) == 0 &&
		    publish_file(c.s, f->cfg->s, f->cfg->len, mode) == 0 &&
		    publish_file(r.s, f->md->s, f->md->len, mode) == 0;
		if (ok && rename(tmp.s, f->folder) < 0) {
			warnmsg("%s:", f->folder);
			ok = 0;
		}
		if (!ok) {
			unlink(t.s);
			unlink(c.s);
			unlink(r.s);
			rmdir(tmp.s);
		}
	}
	for (i = nmade; i-- > 0;) {
		if (!ok)
			rmdir(made[i]);
		free(made[i]);
	}
	free(made);
	free(tmp.s);
	free(t.s);
	free(c.s);
	free(r.s);
	return ok ? 0 : -1;
}

/*
 * mkdir -p.  Returns how many folders it made, with their paths, outermost
 * first, in *made; the caller frees them and the array.
 */
static size_t
make_dirs(const char *dir, char ***made)
{
	char *p = xstrdup(dir), *c, save;
	size_t n = 0;

	*made = NULL;
	for (c = p + 1; ; c++) {
		if (*c != '/' && *c != '\0')
			continue;
		save = *c;
		*c = '\0';
		if (mkdir(p, 0777) == 0) {
			*made = xreallocarray(*made, n + 1, sizeof(**made));
			(*made)[n++] = xstrdup(p);
		} else if (errno != EEXIST)
			die("%s:", p);
		*c = save;
		if (*c == '\0')
			break;
	}
	free(p);
	return n;
}
