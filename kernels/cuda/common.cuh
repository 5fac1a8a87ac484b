// Shared definitions for every kernel module. REAL is set by the host: -DREAL=float|double.
#pragma once
#ifndef REAL
#define REAL double
#endif

typedef unsigned int u32;
typedef unsigned long long u64;
