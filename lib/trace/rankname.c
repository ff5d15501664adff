/*
 * rankname: rank-3, rank_3, rank[3], worker3, -TP-3: how launchers and
 * users name per-rank files (tensorboard_trace_handler's worker_name, say
 * worker0.<ts>...; xDiT's profile_trace_rank_3; SGLang's <time>-TP-3;
 * nsys -o report_rank%q{RANK}).
 */
#include <ctype.h>
#include <string.h>

#include "trace/rankname.h"

int64_t
rank_from_name(const char *path)
{
	static const char *const words[] = { "rank", "worker", "-TP" };
	const char *p, *q, *base;
	int64_t rank;
	size_t w, len;
	int digits;

	base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	for (w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
		len = strlen(words[w]);
		for (p = base; (p = strstr(p, words[w])) != NULL; p += len) {
			q = p + len;
			if (*q == '-' || *q == '_' || *q == '[')
				q++;
			for (rank = 0, digits = 0; isdigit((unsigned char)*q) &&
			    digits < 9; q++, digits++)
				rank = rank * 10 + (*q - '0');
			if (digits > 0)
				return rank;
		}
	}
	return -1;
}
