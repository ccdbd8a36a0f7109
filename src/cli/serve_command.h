/*
 * serve_command.h: statemap-lua --serve: the classic command's files,
 * loaded whole into stores (through the cache, as statemap.load loads
 * them) and served over HTTP (server.h) until SIGINT or SIGTERM.
 *
 * The classic options keep their meaning: -b/-e/-d the window the page
 * opens on, -c the rectangle budget of each answer, -s and -S the order
 * of entities and of stacked files (over that first window), -f the
 * entities shown, -i no tags (a load without tags is not cached), -h the
 * strips' height.  -o, -n and -T json write nothing here: refused.
 */
#ifndef SM_SERVE_COMMAND_H
#define SM_SERVE_COMMAND_H

#include "cli/classic.h"

/*
 * port and bind are the values of --port and --bind, or NULL.  The first
 * line on standard error is "statemap-lua: serving URL".  Returns the exit
 * status: 0 when a signal ended it, 1 for a trace or the address that
 * fails, 2 for a bad option.
 */
int serve_command(const classic_options *o, char *const *files, int nfiles,
    const char *port, const char *bind);

#endif
