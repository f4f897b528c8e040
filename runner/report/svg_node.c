/* SPDX-License-Identifier: Apache-2.0 */
/*
 * svg_node.c - cleaned elements and attributes for inline SVG and pages
 */
#include "runner/report/svg_node.h"
#include "runner/report/junit.h"

#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>

xmlNodePtr svg_node_el(xmlNodePtr parent, const char *tag, const char *text)
{
	char *t = text ? junit_text_clean(text, SVG_NODE_TEXT_MAX) : NULL;
	xmlNodePtr n = xmlNewTextChild(parent, NULL, BAD_CAST tag,
				       t ? BAD_CAST t : NULL);

	free(t);
	return n;
}

void svg_node_attr(xmlNodePtr n, const char *name, const char *value)
{
	char *v = junit_text_clean(value, SVG_NODE_TEXT_MAX);

	xmlNewProp(n, BAD_CAST name, BAD_CAST v);
	free(v);
}

void svg_node_attrf(xmlNodePtr n, const char *name, double v)
{
	char b[32];

	snprintf(b, sizeof(b), "%.1f", v);
	xmlNewProp(n, BAD_CAST name, BAD_CAST b);
}
