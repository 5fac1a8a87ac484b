// One-rank stand-in for the MPI calls TRITON makes, for a GPU machine without MPI headers
// (benchmarks/peers/triton_bench.sh uses it by default, and with MPI=system where no working
// mpic++/mpicxx is found). With one rank, TRITON's halo exchanges never run (no neighbours),
// and every gather, reduction and broadcast is a copy or nothing. Not a general MPI: only what TRITON's sources name.
#ifndef TRITON_MPI_SINGLE_H
#define TRITON_MPI_SINGLE_H
#include <chrono>
#include <cstring>

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef struct { int MPI_SOURCE, MPI_TAG, MPI_ERROR; } MPI_Status;

#define MPI_SUCCESS 0
#define MPI_COMM_WORLD 0
#define MPI_INT 4
#define MPI_INTEGER 4
#define MPI_FLOAT 104
#define MPI_DOUBLE 8
#define MPI_MIN 1
#define MPI_MAX 2
#define MPI_SUM 3
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)

static inline size_t mpi_single_size(MPI_Datatype t) { return t == MPI_FLOAT ? 4 : (size_t)t; }
static inline int MPI_Init(int *, char ***) { return 0; }
static inline int MPI_Finalize() { return 0; }
static inline int MPI_Comm_size(MPI_Comm, int *s) { *s = 1; return 0; }
static inline int MPI_Comm_rank(MPI_Comm, int *r) { *r = 0; return 0; }
static inline int MPI_Barrier(MPI_Comm) { return 0; }
static inline int MPI_Bcast(void *, int, MPI_Datatype, int, MPI_Comm) { return 0; }
static inline int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op, MPI_Comm) {
  if (s != r) std::memmove(r, s, n * mpi_single_size(t));
  return 0;
}
static inline int MPI_Gather(const void *s, int n, MPI_Datatype t, void *r, int, MPI_Datatype, int, MPI_Comm) {
  if (s != r) std::memmove(r, s, n * mpi_single_size(t));
  return 0;
}
static inline int MPI_Gatherv(const void *s, int n, MPI_Datatype t, void *r, const int *, const int *displs,
                              MPI_Datatype, int, MPI_Comm) {
  char *dst = (char *)r + (displs ? displs[0] : 0) * mpi_single_size(t);
  if (s != dst) std::memmove(dst, s, n * mpi_single_size(t));
  return 0;
}
// No rank has a neighbour: TRITON posts no point-to-point message with one rank.
static inline int MPI_Isend(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *q) { *q = 0; return 0; }
static inline int MPI_Irecv(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *q) { *q = 0; return 0; }
static inline int MPI_Wait(MPI_Request *, MPI_Status *) { return 0; }
static inline int MPI_Waitall(int, MPI_Request *, MPI_Status *) { return 0; }
static inline double MPI_Wtime() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
#endif
