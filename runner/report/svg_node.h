/* SPDX-License-Identifier: Apache-2.0 */
/*
 * svg_node.h - libxml2 nodes for the reports' inline pictures and pages
 *
 * Text that reaches a page (names from CRSs, harnesses, files, a store)
 * is cleaned (junit_text_clean: no control characters, capped) and only
 * ever placed in text nodes and attribute values, which libxml2 escapes.
 */
#ifndef CRS_RUNNER_REPORT_SVG_NODE_H
#define CRS_RUNNER_REPORT_SVG_NODE_H

#include <stddef.h>

struct _xmlNode;

/* bytes of a text or attribute value kept */
#define SVG_NODE_TEXT_MAX 400

/* A child element `tag` with a cleaned text child (`text` may be NULL). */
struct _xmlNode *svg_node_el(struct _xmlNode *parent, const char *tag,
			     const char *text);
/* Attribute `name` set to cleaned `value`. */
void svg_node_attr(struct _xmlNode *n, const char *name, const char *value);
/* Attribute `name` set to `v` with one decimal. */
void svg_node_attrf(struct _xmlNode *n, const char *name, double v);

#endif
