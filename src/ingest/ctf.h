/*
 * ctf.h: CTF traces (LTTng's kernel traces, or any CTF trace whose
 * events have the kernel's names), read with libbabeltrace2 as a
 * kev_source (kevent.h): the directory that holds the trace's
 * "metadata" file.
 */
#ifndef SM_CTF_H
#define SM_CTF_H

#include "base/error.h"
#include "ingest/kevent.h"

/*
 * Opens the CTF trace in dir (path is the name the user gave, for
 * errors): the source, or NULL with err set.
 */
kev_source *ctf_open(const char *path, const char *dir, sm_error *err);

#endif
