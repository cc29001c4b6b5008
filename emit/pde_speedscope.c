/*
 * pde_speedscope.c - a flame graph's tree in speedscope's JSON file
 * format (https://www.speedscope.app/file-format-schema.json, as the npm
 * package speedscope 1.25 ships it): the frames once each in
 * shared.frames, and one "sampled" profile whose samples are the tree's
 * distinct stacks (a stack of frame indices, root first) weighted by
 * their counts.  Frame indices are the tree's name ids, so a name is one
 * frame wherever it appears, and the output is a function of the tree.
 */
#include "pd_config.h"
#include "pda_flame.h"
#include "pde.h"

#include <stdlib.h>

#define SCHEMA_URL "https://www.speedscope.app/file-format-schema.json"

static void put_frames(struct pde_json *j, const struct pda_flame_node *nodes,
		       size_t nr)
{
	uint32_t next = 0;

	pde_json_begin_object(j, "shared");
	pde_json_begin_array(j, "frames");
	/* name ids count up in node order, so each first use is in order */
	for (size_t i = 0; i < nr; i++) {
		if (nodes[i].name_id != next)
			continue;
		pde_json_begin_object(j, NULL);
		pde_json_str(j, "name", nodes[i].name);
		pde_json_end_object(j);
		next++;
	}
	pde_json_end_array(j);
	pde_json_end_object(j);
}

/* samples: [[ids root first] per node with self samples]; path[d - 1]
 * holds the name id of the current node's ancestor at depth d */
/* A count in units of 10^-decimals: a whole number when decimals is 0 */
static void put_weight(struct pde_json *j, const char *key, uint64_t v,
		       unsigned decimals)
{
	double scale = 1;

	if (!decimals) {
		pde_json_u64(j, key, v);
		return;
	}
	for (unsigned d = 0; d < decimals; d++)
		scale *= 10;
	pde_json_double(j, key, (double)v / scale);
}

static void put_samples(struct pde_json *j, const struct pda_flame_node *nodes,
			size_t nr, uint32_t *path, unsigned decimals)
{
	pde_json_begin_array(j, "samples");
	for (size_t i = 0; i < nr; i++) {
		const struct pda_flame_node *n = &nodes[i];

		if (n->depth > 0)
			path[n->depth - 1] = n->name_id;
		if (!n->self)
			continue;
		pde_json_begin_array(j, NULL);
		for (uint32_t d = 0; d < n->depth; d++)
			pde_json_u64(j, NULL, path[d]);
		pde_json_end_array(j);
	}
	pde_json_end_array(j);
	pde_json_begin_array(j, "weights");
	for (size_t i = 0; i < nr; i++)
		if (nodes[i].self)
			put_weight(j, NULL, nodes[i].self, decimals);
	pde_json_end_array(j);
}

int pde_speedscope(FILE *out, const struct pda_flame_node *nodes, size_t nr,
		   const struct pde_speedscope_opts *opts)
{
	const char *name = opts->name ? opts->name : "";
	struct pde_json j;
	uint32_t max_depth = 0, *path;

	for (size_t i = 0; i < nr; i++)
		if (nodes[i].depth > max_depth)
			max_depth = nodes[i].depth;
	path = malloc(((size_t)max_depth + 1) * sizeof(*path));
	if (!path)
		return PD_ERR_NOMEM;
	pde_json_init(&j, out, false);
	pde_json_begin_object(&j, NULL);
	pde_json_str(&j, "$schema", SCHEMA_URL);
	pde_json_str(&j, "name", name);
	if (opts->exporter)
		pde_json_str(&j, "exporter", opts->exporter);
	pde_json_u64(&j, "activeProfileIndex", 0);
	put_frames(&j, nodes, nr);
	pde_json_begin_array(&j, "profiles");
	pde_json_begin_object(&j, NULL);
	pde_json_str(&j, "type", "sampled");
	pde_json_str(&j, "name", name);
	pde_json_str(&j, "unit", "none");
	pde_json_u64(&j, "startValue", 0);
	put_weight(&j, "endValue", nr ? nodes[0].total : 0, opts->decimals);
	put_samples(&j, nodes, nr, path, opts->decimals);
	pde_json_end_object(&j);
	pde_json_end_array(&j);
	pde_json_end_object(&j);
	pde_json_newline(&j);
	free(path);
	return ferror(out) ? PD_ERR_IO : 0;
}
