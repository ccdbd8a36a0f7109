/*
 * cache_directory.h: the directory where the cache keeps its entries
 * (cache.h) and a spill its temporary files (spill.h): where it is, and
 * opening it only if it is safe to use.
 *
 * It is $XDG_CACHE_HOME/statemap-lua (an absolute XDG_CACHE_HOME; a
 * relative one is ignored, as the XDG base directory spec says), else
 * ~/.cache/statemap-lua.  It is made mode 0700 when missing, and so are
 * its missing parents (as the spec says).  A directory that is not the
 * user's, or that group or others may write to, is not used: whoever
 * could write there could put or change entries.  The directory may be a
 * symbolic link only if the user made the link (the kernel's
 * protected_symlinks rule, checked here too).
 */
#ifndef SM_CACHE_DIRECTORY_H
#define SM_CACHE_DIRECTORY_H

/* The directory's path (malloc'd), or NULL if there is none. */
char *cache_directory(void);

/*
 * Opens the directory (making it first if create is set), if it is to be
 * used: a descriptor, or -1.  A directory refused (above) is said on
 * stderr, one line once per process for a given directory and reason, so
 * that a script that loads many traces gets one line, not one per load.
 * If path is not NULL, the directory's path (malloc'd) goes to *path, or
 * NULL with -1.  Works even when the cache is turned off.
 */
int cache_directory_open(int create, char **path);

/*
 * Opens the directory dir (making it first if create is set), if it is
 * to be used, saying nothing: a descriptor, or -1 with *why saying why a
 * directory that is there is refused (NULL when there is none to use;
 * errno then says why).
 */
int cache_directory_open_checked(const char *dir, int create,
    const char **why);

#endif
