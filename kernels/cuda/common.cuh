// Shared definitions for every kernel family. REAL is set by the host: -DREAL=float|double.
#pragma once
#ifndef REAL
#define REAL double
#endif

typedef unsigned int u32;
typedef unsigned long long u64;

// Ghost (halo) width of the padded structured arrays: the 8th-order stencil reaches 4 points.
#define HALO 4
