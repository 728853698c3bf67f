// The system's zlib, for NetAsyncHTTPClient's decoding of content codings beyond the one SwiftNIO decodes (package
// trait AsyncHTTPClient only; AsyncHTTPClient links the same library). inflateInit2 is a macro, which Swift cannot
// call: this function calls it.
#ifndef CNETKITZLIB_H
#define CNETKITZLIB_H

#include <zlib.h>

static inline int CNetKitZlib_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
