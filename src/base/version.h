#ifndef SM_VERSION_H
#define SM_VERSION_H

#define STATEMAP_VERSION	"0.1.0"

#endif
