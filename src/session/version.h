/* version.h — the program's version string, written into every exported figure's
 * provenance ("Software: inferscope 0.1.0") and shown by --version. One place only,
 * so a figure always says which build drew it. Not a build id: no git hash here. */
#ifndef INFERSCOPE_VERSION_H
#define INFERSCOPE_VERSION_H

#define INFERSCOPE_VERSION "0.1.0"

#endif
