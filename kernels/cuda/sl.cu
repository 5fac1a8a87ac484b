// The semi-Lagrangian pieces every family on tetrahedra shares (solver/src/numerics/sl/):
// least-squares gradients and ranges, vertex values, least-squares quadratic fits, quadratic /
// Voronoi-dual / gradient-corrected / linear interpolation at located departure points with Dirichlet virtual cells, and the BFECC
// correction and limiter. Each kernel works on one scalar field, so a family calls them once
// per field or velocity component on the same departure points.
#include "tet.cuh"

// Least-squares gradients and neighbour ranges (mesh::gradients::lsq_gradients).
extern "C" __global__ void sl_gradients(Mesh m, const REAL* f, REAL* grad, REAL* rlo, REAL* rhi) {
    early_launch_entry();
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= m.ncells) return;
    REAL a[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, b[3] = {0, 0, 0};
    REAL lo = f[c], hi = f[c];
    for (int k = 0; k < 4; ++k) {
        u32 d = m.nbrs[4 * (u64)c + k];
        if (d & BOUNDARY) continue;
        lo = fmin(lo, f[d]); hi = fmax(hi, f[d]);
        const REAL* xd = m.centroids + 3 * (u64)d;
        const REAL* xc = m.centroids + 3 * (u64)c;
        REAL r[3] = {xd[0] - xc[0], xd[1] - xc[1], xd[2] - xc[2]};
        REAL w = K(1) / dot3(r, r);
        REAL df = f[d] - f[c];
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) a[i][j] += w * r[i] * r[j];
            b[i] += w * r[i] * df;
        }
    }
    REAL g[3];
    solve3(a, b, g);
    bool ok = isfinite(g[0]) && isfinite(g[1]) && isfinite(g[2]);
    for (int k = 0; k < 3; ++k) grad[3 * (u64)c + k] = ok ? g[k] : K(0);
    rlo[c] = lo; rhi[c] = hi;
}

// Volume-weighted cell values at the vertices, Dirichlet vertices pinned (numerics::sl::interp::vertex_values).
extern "C" __global__ void sl_vertex_values(Mesh m, const REAL* f, REAL* fv) {
    early_launch_entry();
    u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= m.nnodes) return;
    if (!isnan(m.node_bc[v])) { fv[v] = m.node_bc[v]; return; }
    REAL s = K(0), w = K(0);
    for (u32 e = m.doff[v]; e < m.doff[v + 1]; ++e) {
        u32 t = m.dcells[e];
        s += m.volumes[t] * f[t];
        w += m.volumes[t];
    }
    fv[v] = w > K(0) ? s / w : K(0);
}

// Packed lower-triangular index, as numerics::sl::quadratic::tri.
#define TRI(i, j) ((i) * ((i) + 1) / 2 + (j))

// The quadratic's monomials at a scaled offset (numerics::sl::quadratic::monomials).
__device__ inline void monomials(const REAL* r, REAL* ph) {
    REAL x = r[0], y = r[1], z = r[2];
    ph[0] = K(1); ph[1] = x; ph[2] = y; ph[3] = z;
    ph[4] = x * x; ph[5] = x * y; ph[6] = x * z; ph[7] = y * y; ph[8] = y * z; ph[9] = z * z;
}

// Least-squares quadratic of f around each vertex (numerics::sl::quadratic::fit_field): per vertex
// 16 reals, the coefficients (10), the stencil's min and max, 1/h, padding. qsrc/qpts: the
// stencil (cell or BOUNDARY | Dirichlet patch; scaled offset and weight) by slices of 32
// vertices, entry k of vertex v at qslice[v / 32] + 32 k + v % 32, qcount[v] entries (the
// host's WarpSlices: the threads of a warp read consecutive addresses); qfac: 64 per vertex,
// the packed Cholesky factor (55), the number of unknowns, 1/h, by slices of 32 vertices alike.
extern "C" __global__ void sl_quad_fit(u32 nnodes, const u32* qslice, const u32* qcount, const u32* qsrc,
                                       const REAL* qpts, const REAL* qfac, const REAL* f, const REAL* bc, REAL* rec) {
    early_launch_entry();
    u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= nnodes) return;
    // The factors by slices of 32 vertices too: value j of vertex v at 64 32 (v / 32) + 32 j + v % 32.
    const REAL* fac_v = qfac + 64 * 32 * (u64)(v >> 5) + (v & 31);
#define FAC(j) fac_v[32 * (j)]
    int n = (int)FAC(55);
    // Loops run to the compile-time 10 with `< n` guards (the same operations in the same
    // order as loops to n): fully unrolled, b and the monomials stay in registers instead of
    // local memory.
    REAL b[10] = {K(0), K(0), K(0), K(0), K(0), K(0), K(0), K(0), K(0), K(0)};
    REAL lo = BIG, hi = -BIG;
    const u64 e0 = qslice[v >> 5] + (v & 31);
    const u32 count = qcount[v];
    for (u32 k = 0; k < count; ++k) {
        const u64 e = e0 + 32 * (u64)k;
        u32 s = qsrc[e];
        REAL fe = (s & BOUNDARY) ? bc[s & ~BOUNDARY] : f[s];
        REAL p[4];
        load4(qpts + 4 * (u64)e, p);
        REAL ph[10];
        monomials(p, ph);
        REAL wf = p[3] * fe;
#pragma unroll
        for (int k = 0; k < 10; ++k)
            if (k < n) b[k] += wf * ph[k];
        lo = fmin(lo, fe); hi = fmax(hi, fe);
    }
#pragma unroll
    for (int i = 0; i < 10; ++i) {
        if (i < n) {
            REAL s = b[i];
#pragma unroll
            for (int k = 0; k < i; ++k) s -= FAC(TRI(i, k)) * b[k];
            b[i] = s / FAC(TRI(i, i));
        }
    }
#pragma unroll
    for (int i = 9; i >= 0; --i) {
        if (i < n) {
            REAL s = b[i];
#pragma unroll
            for (int k = i + 1; k < 10; ++k)
                if (k < n) s -= FAC(TRI(k, i)) * b[k];
            b[i] = s / FAC(TRI(i, i));
        }
    }
    REAL* r = rec + 16 * (u64)v;
    for (int k = 0; k < 10; ++k) r[k] = b[k];
    r[10] = lo; r[11] = hi; r[12] = FAC(56);
#undef FAC
    r[13] = K(0); r[14] = K(0); r[15] = K(0);
}

// Where point i left the domain, its boundary value (Dirichlet, else the value of
// the cell it left from); whether it did.
__device__ inline bool outside_point(u32 i, const u32* lcell, const int* lpatch, const REAL* f, const REAL* bc,
                                     REAL* out, REAL* olo, REAL* ohi) {
    const int patch = lpatch[i];
    if (patch < 0) return false;
    REAL v = bc[patch];
    if (isnan(v)) v = f[lcell[i]];
    out[i] = v; olo[i] = v; ohi[i] = v;
    return true;
}

// interp: 0 voronoi, 1 voronoi-grad, 2 linear, 3 quadratic clamped to the union of the vertex
// ranges, 4 quadratic clamped to the ranges blended by the weights, 5 quadratic unclamped
// (numerics::sl::quadratic::Bounds; fv: the fit records of sl_quad_fit). bc[patch]: Dirichlet value, NaN for Neumann.
extern "C" __global__ void BOUNDS sl_interp(Mesh m, int interp, const REAL* px, const u32* lcell, const int* lpatch,
                                         const REAL* f, const REAL* fv, const REAL* grad, const REAL* rlo,
                                         const REAL* rhi, const REAL* bc, REAL* out, REAL* olo, REAL* ohi) {
    early_launch_entry();
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m.ncells) return;
    if (outside_point(i, lcell, lpatch, f, bc, out, olo, ohi)) return;
    u32 c = lcell[i];
    const REAL* p = px + 3 * (u64)i;
    const u32* cell = m.cells + 4 * (u64)c;
    if (interp == 2) {
        REAL l[4];
        barycentric(m, c, p, l);
        REAL s = K(0), lo = BIG, hi = -BIG, norm = K(0);
        for (int k = 0; k < 4; ++k) {
            REAL val = fv[cell[k]];
            REAL lk = fmin(fmax(l[k], K(0)), K(1));
            s += lk * val;
            lo = fmin(lo, val); hi = fmax(hi, val);
        }
        for (int k = 0; k < 4; ++k) norm += fmin(fmax(l[k], K(0)), K(1));
        out[i] = s / norm; olo[i] = lo; ohi[i] = hi;
        return;
    }
    if (interp >= 3 && interp <= 5) {
        REAL l[4];
        barycentric(m, c, p, l);
        REAL s = K(0), norm = K(0), lo = BIG, hi = -BIG, wlo = K(0), whi = K(0);
        for (int k = 0; k < 4; ++k) {
            u32 v = cell[k];
            REAL r[16];
            load16(fv + 16 * (u64)v, r);
            const REAL* xn = m.nodes + 3 * (u64)v;
            REAL ih = r[12];
            REAL x[3] = {(p[0] - xn[0]) * ih, (p[1] - xn[1]) * ih, (p[2] - xn[2]) * ih};
            REAL ph[10];
            monomials(x, ph);
            REAL val = K(0);
            for (int j = 0; j < 10; ++j) val += r[j] * ph[j];
            REAL w = fmin(fmax(l[k], K(0)), K(1));
            s += w * val;
            norm += w;
            lo = fmin(lo, r[10]); hi = fmax(hi, r[11]);
            wlo += w * r[10]; whi += w * r[11];
        }
        if (interp == 4) { lo = wlo / norm; hi = whi / norm; }
        if (interp == 5) { lo = -BIG; hi = BIG; }
        out[i] = fmin(fmax(s / norm, lo), hi); olo[i] = lo; ohi[i] = hi;
        return;
    }
    u32 v = nearest_vertex(m, c, p);
    // Two interleaved partial sums, even and odd donor positions, as interp::voronoi.
    REAL sw[2] = {K(0), K(0)}, swf[2] = {K(0), K(0)}, lo = BIG, hi = -BIG;
    const u32 first_virtual = m.doff[v + 1] - m.doff[v];
    for (u32 e = m.doff[v], j = 0; e < m.doff[v + 1]; ++e, ++j) {
        u32 t = m.dcells[e];
        REAL w = warren(m.dual + 16 * (u64)e, p);
        REAL ft = f[t];
        if (interp == 1) {
            const REAL* xt = m.centroids + 3 * (u64)t;
            REAL r[3] = {p[0] - xt[0], p[1] - xt[1], p[2] - xt[2]};
            ft = fmin(fmax(f[t] + dot3(grad + 3 * (u64)t, r), rlo[t]), rhi[t]);
        }
        sw[j & 1] += w;
        swf[j & 1] += w * ft;
        lo = fmin(lo, f[t]); hi = fmax(hi, f[t]);
    }
    // Dirichlet virtual cells around v (section II.C).
    for (u32 e = m.voff[v], j = first_virtual; e < m.voff[v + 1]; ++e, ++j) {
        REAL fb = bc[m.vpatch[e]];
        REAL w = warren(m.virt + 16 * (u64)e, p);
        sw[j & 1] += w;
        swf[j & 1] += w * fb;
        lo = fmin(lo, fb); hi = fmax(hi, fb);
    }
    out[i] = (swf[0] + swf[1]) / (sw[0] + sw[1]); olo[i] = lo; ohi[i] = hi;
}

// ---- The Voronoi-dual interpolation by vertex groups ------------------------------------
// sl_interp reads a vertex's dual entries (16 REALs each) and their cells' values once for
// every departure point near that vertex (about six per vertex), gathered per thread: the
// kernel is bound by L1 tag lookups, not by DRAM. Here the points are first bucketed by the
// group of consecutive vertices their nearest vertex belongs to (groups: the host's partition,
// at most `cap` dual and `vcap` virtual entries each; the departure kernels find the nearest
// vertices and count the buckets, tet.cuh's GroupSink); one block per group then
// stages the group's entries and values in shared memory with coalesced loads and evaluates
// every point of its bucket from there. Each point sums its entries in the same order with the
// same arithmetic as sl_interp, so the result is bit-identical to it (and to the CPU).

// The boundary values alone, for points already bucketed (the same departures again; the
// fill writes them the first time).
extern "C" __global__ void sl_group_outside(u32 n, const u32* lcell, const int* lpatch, const REAL* f, const REAL* bc,
                                            REAL* out, REAL* olo, REAL* ohi) {
    early_launch_entry();
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) outside_point(i, lcell, lpatch, f, bc, out, olo, ohi);
}

// Exclusive prefix sum of the ngroups bucket sizes in three launches of 1024-thread blocks,
// each block a tile of 1024 groups: the tiles' totals, their prefix sum (one block), then
// each tile's own scan offset by it. Out: the buckets' starts (ngroups + 1) and a copy to fill
// them by. (One block over all tiles was barrier- or latency-bound: 27-65 us on 25k groups.)

// Exclusive scan of x over the block (1024 threads); *total gets the block's sum.
__device__ inline u32 block_exclusive_scan(u32 x, u32* total) {
    __shared__ u32 warp_sum[32];
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    u32 incl = x;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const u32 y = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= (u32)d) incl += y;
    }
    if (lane == 31) warp_sum[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        const u32 w = warp_sum[lane];
        u32 wi = w;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const u32 y = __shfl_up_sync(0xffffffffu, wi, d);
            if (lane >= (u32)d) wi += y;
        }
        warp_sum[lane] = wi - w;
        if (lane == 31) *total = wi;
    }
    __syncthreads();
    const u32 r = warp_sum[warp] + incl - x;
    __syncthreads();  // warp_sum is reused by the next call
    return r;
}

extern "C" __global__ void sl_group_scan_tiles(u32 ngroups, const u32* gcount, u32* tile_sum) {
    early_launch_entry();
    __shared__ u32 total;
    const u32 g = blockIdx.x * 1024 + threadIdx.x;
    block_exclusive_scan(g < ngroups ? gcount[g] : 0, &total);
    __syncthreads();
    if (threadIdx.x == 0) tile_sum[blockIdx.x] = total;
}

// One block: the tiles' starts, in place.
extern "C" __global__ void sl_group_scan_top(u32 ntiles, u32* tile_sum) {
    early_launch_entry();
    __shared__ u32 total;
    u32 carry = 0;
    for (u32 base = 0; base < ntiles; base += 1024) {
        const u32 t = base + threadIdx.x;
        const u32 x = t < ntiles ? tile_sum[t] : 0;
        const u32 start = carry + block_exclusive_scan(x, &total);
        __syncthreads();
        if (t < ntiles) tile_sum[t] = start;
        carry += total;
        __syncthreads();
    }
}

extern "C" __global__ void sl_group_scan(u32 ngroups, const u32* gcount, const u32* tile_start, u32* gstart,
                                         u32* gcursor) {
    early_launch_entry();
    __shared__ u32 total;
    const u32 g = blockIdx.x * 1024 + threadIdx.x;
    const u32 x = g < ngroups ? gcount[g] : 0;
    const u32 start = tile_start[blockIdx.x] + block_exclusive_scan(x, &total);
    if (g < ngroups) { gstart[g] = start; gcursor[g] = start; }
    if (g == ngroups - 1) gstart[ngroups] = start + x;
}

// The buckets, and the boundary values of the points outside the domain.
extern "C" __global__ void sl_group_fill(u32 n, const u32* near, const u32* vgroup, u32* gcursor, u32* order,
                                         const u32* lcell, const int* lpatch, const REAL* f, const REAL* bc,
                                         REAL* out, REAL* olo, REAL* ohi) {
    early_launch_entry();
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (near[i] == NO_VERTEX) {
        outside_point(i, lcell, lpatch, f, bc, out, olo, ohi);
        return;
    }
    // One atomic per group present in the warp; each peer takes the next slot by its rank.
    const u32 g = vgroup[near[i]];
    const unsigned peers = __match_any_sync(__activemask(), g);
    const int lane = threadIdx.x & 31, leader = __ffs(peers) - 1;
    u32 base = 0;
    if (lane == leader) base = atomicAdd(gcursor + g, (u32)__popc(peers));
    base = __shfl_sync(peers, base, leader);
    order[base + __popc(peers & ((1u << lane) - 1))] = i;
}

// One block per vertex group: its bucket's points, from the group's entries staged in shared
// memory (a group of one vertex with more entries than fit reads them from global memory).
// Shared memory layout: the dual entries' rows of 16 values, with 16 bytes of padding after
// each vertex's rows (vertices of a uniform mesh have equal entry counts, 24 on a Kuhn box, so
// without it the threads of a warp, at the same step of their own vertices' loops, would read
// vectors in the same banks); the virtual entries' rows; then the entries' cell (or patch)
// values, dual then virtual. Dynamic size (the host's group_caps): 16 (cap + vcap) + PAD vmax
// + cap + vcap REALs, for at most cap dual and vcap virtual entries and vmax vertices.
#define GROUP_PAD (16 / (int)sizeof(REAL))

// `count` entries of 16 REALs from global memory to shared memory at dst (16-byte vector
// loads, coalesced), by the lanes [lane0, lane0 + lanes) of the block.
__device__ inline void stage_rows(REAL* dst, const REAL* src, u32 count, u32 lane, u32 lanes) {
    const int4* s4 = (const int4*)src;
    int4* d4 = (int4*)dst;
    for (u32 k = lane; k < count * 16 * sizeof(REAL) / 16; k += lanes) d4[k] = __ldg(s4 + k);
}

// An entry's 16 values from a staged row, in vector loads.
__device__ inline void load_row(const REAL* row, REAL* g) {
    const int4* r4 = (const int4*)row;
    const u32 per = 16 / sizeof(REAL);
#pragma unroll
    for (u32 k = 0; k < 16 / per; ++k) {
        const int4 x = r4[k];
        const REAL* xs = (const REAL*)&x;
#pragma unroll
        for (u32 q = 0; q < per; ++q) g[k * per + q] = xs[q];
    }
}

// One of a point's two partial sums of eq. 14 (even or odd donor positions), in sl_interp's order.
struct VoronoiSum {
    REAL sw, swf, lo, hi;
};

// Entry e into the sums: from its staged row and value, or (a group too big to stage) from
// global memory, its 16 values at recs + 16 e and its value vals[idx[e]].
__device__ inline void add_entry(VoronoiSum& s, bool staged, const REAL* row, const REAL* staged_val, const REAL* p,
                                 const REAL* recs, const REAL* vals, const u32* idx, u32 e) {
    REAL w, val;
    if (staged) {
        REAL r[16];
        load_row(row, r);
        w = warren_of(r, p);
        val = *staged_val;
    } else {
        w = warren(recs + 16 * (u64)e, p);
        val = vals[idx[e]];
    }
    s.sw += w;
    s.swf += w * val;
    s.lo = fmin(s.lo, val); s.hi = fmax(s.hi, val);
}

// A bucket's point: its index, nearest vertex, coordinates and the vertex's dual and virtual
// entry ranges, all read from global memory (a chain of three dependent loads, which the
// kernel issues before it waits for anything else).
struct BucketPoint {
    u32 i, v, a, b, va, vb;
    REAL p[3];
};

__device__ inline BucketPoint fetch_point(const Mesh& m, const u32* order, const u32* near, const REAL* px, u32 s) {
    BucketPoint q;
    q.i = order[s];
    q.v = near[q.i];
    for (int k = 0; k < 3; ++k) q.p[k] = px[3 * (u64)q.i + k];
    q.a = m.doff[q.v]; q.b = m.doff[q.v + 1];
    q.va = m.voff[q.v]; q.vb = m.voff[q.v + 1];
    return q;
}

#ifdef GROUP_MIN_BLOCKS
#define GROUP_BOUNDS __launch_bounds__(256, GROUP_MIN_BLOCKS)
#else
#define GROUP_BOUNDS __launch_bounds__(256)
#endif
extern "C" __global__ void GROUP_BOUNDS sl_group_interp(Mesh m, u32 cap, u32 vcap, u32 vmax, const u32* groups,
                                                        const u32* gstart, const u32* order, const u32* near,
                                                        const REAL* px, const REAL* f, const REAL* bc, REAL* out,
                                                        REAL* olo, REAL* ohi) {
    early_launch_entry();
    extern __shared__ __align__(16) unsigned char group_smem[];
    REAL* rec = (REAL*)group_smem;
    REAL* vrec = rec + 16 * cap + GROUP_PAD * vmax;
    REAL* val = vrec + 16 * vcap;
    REAL* vval = val + cap;
    const u32 g = blockIdx.x;
    const u32 s0 = gstart[g], s1 = gstart[g + 1];
    if (s0 == s1) return;  // no point near this group
    // Two threads per point, adjacent lanes, one per partial sum of interp::voronoi (even and
    // odd donor positions: dual entries, then virtual ones), added by the even one. The first
    // point's loads go out before the staging's, so their latencies overlap.
    const u32 half = threadIdx.x & 1, pair = 3u << (threadIdx.x & 30), stride = blockDim.x >> 1;
    u32 s = s0 + (threadIdx.x >> 1);
    BucketPoint q = {};
    if (s < s1) q = fetch_point(m, order, near, px, s);
    const u32 v0 = groups[g], v1 = groups[g + 1];
    const u32 e0 = m.doff[v0], ne = m.doff[v1] - e0;
    const u32 w0 = m.voff[v0], nw = m.voff[v1] - w0;
    const bool staged = ne <= cap && nw <= vcap && v1 - v0 <= vmax;
    if (staged) {
        // A warp per vertex: its entries are contiguous in the table.
        const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
        for (u32 lv = warp; lv < v1 - v0; lv += warps) {
            const u32 a = m.doff[v0 + lv] - e0, cnt = m.doff[v0 + lv + 1] - e0 - a;
            stage_rows(rec + 16 * a + GROUP_PAD * lv, m.dual + 16 * (u64)(e0 + a), cnt, lane, 32);
        }
        for (u32 k = threadIdx.x; k < ne; k += blockDim.x) val[k] = f[m.dcells[e0 + k]];
        stage_rows(vrec, m.virt + 16 * (u64)w0, nw, threadIdx.x, blockDim.x);
        for (u32 k = threadIdx.x; k < nw; k += blockDim.x) vval[k] = bc[m.vpatch[w0 + k]];
        __syncthreads();
    }
    for (; s < s1; s += stride) {
        VoronoiSum sum = {K(0), K(0), BIG, -BIG};
        const REAL* row = rec + 16 * (q.a + half - e0) + GROUP_PAD * (q.v - v0);
        for (u32 e = q.a + half; e < q.b; e += 2, row += 32)
            add_entry(sum, staged, row, val + (e - e0), q.p, m.dual, f, m.dcells, e);
        for (u32 e = q.va + ((half + q.b - q.a) & 1); e < q.vb; e += 2)
            add_entry(sum, staged, vrec + 16 * (e - w0), vval + (e - w0), q.p, m.virt, bc, m.vpatch, e);
        // The other half's sums (the odd ones, seen from the even thread).
        const REAL sw2 = __shfl_xor_sync(pair, sum.sw, 1), swf2 = __shfl_xor_sync(pair, sum.swf, 1);
        const REAL lo2 = __shfl_xor_sync(pair, sum.lo, 1), hi2 = __shfl_xor_sync(pair, sum.hi, 1);
        if (half == 0) {
            out[q.i] = (sum.swf + swf2) / (sum.sw + sw2);
            olo[q.i] = fmin(sum.lo, lo2); ohi[q.i] = fmax(sum.hi, hi2);
        }
        if (s + stride < s1) q = fetch_point(m, order, near, px, s + stride);
    }
}

// BFECC: g = f + (f - f2) / 2
extern "C" __global__ void sl_correct(u32 n, const REAL* f, const REAL* f2, REAL* g) {
    early_launch_entry();
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] = f[i] + K(0.5) * (f[i] - f2[i]);
}

// out = clamp(x, lo, hi) when limit, else x
extern "C" __global__ void sl_limit(u32 n, const REAL* x, const REAL* lo, const REAL* hi, int limit, REAL* out) {
    early_launch_entry();
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = limit ? fmin(fmax(x[i], lo[i]), hi[i]) : x[i];
}
