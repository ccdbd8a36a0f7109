/*
 * tree.h: the attribute tree of a trace: entity names as paths.
 *
 * An entity named "Threads/42/Status" is the attribute Status under the
 * node 42 under the node Threads, as in the seed's state system: the
 * path is the identity, and a node may be an entity and have children
 * too ("Threads/42" may be an entity of its own).  Names are split at
 * every '/' that is not escaped, nothing else (an empty component is a
 * component): "\/" is a '/' inside a component and "\\" a backslash
 * (path_escape.h), so "kworker\/0:1" is one node; a name without a
 * separator is a node at the top.  Nodes that are only prefixes
 * ("Threads") exist in the tree without being entities.
 *
 * The tree is made from the entity names once (catalog_tree) and never
 * changes.  Children are in natural order of their last component
 * (natural.h: cpu2 before cpu10), so listings need no sorting.
 *
 * Patterns (tree_glob_match) select names by path, with the shell's and
 * gitignore's rules: '/' separates components, which wildcards never
 * cross; '*' is any run of characters within a component, '?' any one
 * character, [abc], [a-z] and [!a-z] (or [^a-z]) one of a set, '\'
 * takes the next character literally (so "kworker\/0:1" matches the
 * name written the same way: a name's escape is the character it
 * stands for).  A component that is exactly two
 * stars stands for any number of components: as the last one, for one
 * or more (the pattern CPUs, slash, two stars: everything below CPUs,
 * but not CPUs itself); anywhere else, for zero or more (two stars,
 * slash, Status: every Status at any depth).  Matching takes at most
 * the pattern's length times the name's steps, however many two-star
 * components the pattern has (work.h counts them).
 *
 * Ownership: the tree owns its copies of the paths.
 */
#ifndef SM_TREE_H
#define SM_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "base/intern.h"

#define TREE_NONE	UINT32_MAX
#define TREE_ROOT	0	/* the node above the top: no path */

typedef struct tree tree;

/* The tree of the names in entities (ids are entity ids). */
tree *tree_build(const intern *entities);
void tree_free(tree *t);

/* How many entities it was made from. */
uint32_t tree_nentities(const tree *t);

/* The node of a path ("" is a node of its own), or TREE_NONE. */
uint32_t tree_find(const tree *t, const char *path, size_t len);

/*
 * The node of a path whose ".." components step to the parent (as in
 * getQuarkAbsolute): the node so named if there is one (a name may hold
 * a ".." of its own), else each component from the top, a ".." going
 * up (TREE_NONE above the top, or where a component names no child).
 * "CPUs/0/.." is CPUs; "CPUs/.." the root (TREE_ROOT).
 */
uint32_t tree_resolve(const tree *t, const char *path, size_t len);

/* A node's children, in natural order of their last component. */
uint32_t tree_nchildren(const tree *t, uint32_t node);
const uint32_t *tree_children(const tree *t, uint32_t node);

/* A node's full path (NULL for the root). */
const char *tree_path(const tree *t, uint32_t node, size_t *len);

/* The entity a node is, or TREE_NONE if it is only a prefix. */
uint32_t tree_entity(const tree *t, uint32_t node);

/* Whether name matches the pattern (see above). */
int tree_glob_match(const char *pattern, size_t plen, const char *name,
    size_t nlen);

/*
 * Parent steps (Trace Compass's getQuarks with ".."): a component that is
 * exactly ".." goes from each node matched so far to its parent, and
 * what follows matches below those, so "CPUs/ * /Status/.." (without the
 * spaces) is every node under CPUs that has a Status.  A literal ".."
 * component is written "\..".  The top level's parent is the root, which
 * is no node: those are dropped.
 */
int tree_pattern_has_parent(const char *pattern, size_t plen);

/*
 * Marks (marks[e] = 1, else 0; nentities bytes) the entities the
 * pattern selects, parent steps and all.  -1 with *why if the pattern
 * starts with "..".  O(nodes x depth) glob matches per step.
 */
int tree_select(const tree *t, const char *pattern, size_t plen,
    uint8_t *marks, const char **why);

#endif
