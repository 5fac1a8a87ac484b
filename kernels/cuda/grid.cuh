// The structured-grid layout shared by the structured families (solver/src/grid/layout.rs):
// x fastest, halo[a] ghost layers per side of axis a, rows `px` values apart (128-byte
// aligned, interior i = 0 at offset `xo`), components `cstride` values apart.
#pragma once
#include "common.cuh"

struct Layout {
    int n[3];      // values stored per axis
    int halo[3];   // ghost layers per side
    int xo;        // offset of i = 0 in a row
    int px, py;    // row pitch, rows per plane (n[1] + 2 halo[1])
    int vertex;    // 1: vertex-centred, 0: cell-centred
    u64 cstride;   // values per component
};

__device__ __forceinline__ u64 grid_at(const Layout& g, int i, int j, int k) {
    return (u64)(i + g.xo) + (u64)g.px * ((u64)(j + g.halo[1]) + (u64)g.py * (u64)(k + g.halo[2]));
}

// The padded index of interior cell q (x fastest).
__device__ __forceinline__ u64 cell_at(const Layout& g, u64 q) {
    const u64 nx = (u64)g.n[0], ny = (u64)g.n[1];
    return grid_at(g, (int)(q % nx), (int)((q / nx) % ny), (int)(q / (nx * ny)));
}

// Face conditions (solver/src/grid/boundary.rs, FaceBc::code).
#define BC_PERIODIC 0
#define BC_DIRICHLET 1
#define BC_REFLECT 2
#define BC_OUTFLOW 3
#define BC_NEIGHBOUR 4
#define BC_MAX_COMPONENTS 8

struct Face {
    int kind;
    int negate;                        // component negated by a wall (-1: none)
    REAL value[BC_MAX_COMPONENTS];     // Dirichlet value per component
};
