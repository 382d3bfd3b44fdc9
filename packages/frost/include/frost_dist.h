/* Frost's MPI glue (packages/frost/native/distributed.cpp), bound by distributed.nv's protos
 * (`frost__dist_f` is `f` there). Open MPI's libmpi is loaded at dist.init() only when a launcher
 * started the process, so programs that never train in parallel neither load nor need it.
 *
 * Buffers are contiguous float32 (`float[]`), sizes int64_t. Collectives run on MPI_COMM_WORLD.
 * A failed MPI call, or a collective that does not finish within FROST_DIST_TIMEOUT seconds
 * (default 300), prints one line naming the rank and exits the process with status 1; the
 * launcher then ends the other ranks. Functions returning int64_t give a negative value on a
 * set-up failure, and frost__dist_error() the message. */
#pragma once
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

const char* frost__dist_error(void);
/* Rank and world size from the launcher; loads libmpi and starts the communication thread
 * (MPI_THREAD_SERIALIZED) when the world is larger than one. 0, or -1 on failure. */
int64_t frost__dist_init(void);
int64_t frost__dist_rank(void);
int64_t frost__dist_world_size(void);
/* The rank on this machine (OMPI_COMM_WORLD_LOCAL_RANK, else MPI_LOCALRANKID, else 0). Under a
 * launcher with several ranks here and NEVE_DEVICE unset (or "cuda"), the program's GPU is CUDA
 * device local rank mod the device count (set when the program is loaded). */
int64_t frost__dist_local_rank(void);
/* 1 once MPI is up (a world of more than one process). */
int64_t frost__dist_active(void);
void frost__dist_barrier(void);
/* op: 0 sum, 1 average, 2 max, 3 min; in place, blocking. */
void frost__dist_all_reduce(float* buf, int64_t n, int64_t op);
void frost__dist_broadcast(float* buf, int64_t n, int64_t root);
/* n bytes of rank root's buf to every rank (MPI_BYTE; ncclUniqueId); nothing in a world of one. */
void frost__dist_broadcast_bytes(void* buf, int64_t n, int64_t root);
/* recv holds world_size * n floats, rank r's n at r * n. */
void frost__dist_all_gather(const float* send, int64_t n, float* recv);
/* An in-place all-reduce of buf[0, n) queued for the communication thread; returns its handle.
 * The buffer must stay alive and untouched until frost__dist_wait(handle) returns. */
int64_t frost__dist_start(float* buf, int64_t n, int64_t op);
void frost__dist_wait(int64_t handle);
/* Seconds the calling threads spent blocked in frost__dist_wait, and seconds the communication
 * thread spent inside collectives, since init. */
double frost__dist_wait_seconds(void);
double frost__dist_comm_seconds(void);
/* dst[doff, doff + n) = src[soff, soff + n) (packing gradients into buckets and back). */
void frost__dist_copy(float* dst, int64_t doff, const float* src, int64_t soff, int64_t n);
void frost__dist_scale(float* buf, int64_t n, float s);
/* MPI_Finalize (also at normal exit); idempotent. */
void frost__dist_finalize(void);
/* Print msg and end the whole job (MPI_Abort), status code. */
void frost__dist_abort(int64_t code, const char* msg);

/* The NCCL backend (native/nccl.cpp): libnccl.so.2 loaded at init, rank 0's unique id broadcast
 * over MPI (frost__dist_init first), ncclCommInitRank; 0, or -1 with frost__nccl_error(). The
 * collectives take device pointers and are enqueued on the calling thread's CUDA stream; op as
 * above (average: ncclAvg). A failed NCCL call prints one line naming the rank and exits 1. */
const char* frost__nccl_error(void);
int64_t frost__nccl_init(void);
int64_t frost__nccl_active(void);
void frost__nccl_all_reduce(float* buf, int64_t n, int64_t op);
void frost__nccl_broadcast(float* buf, int64_t n, int64_t root);
void frost__nccl_all_gather(const float* send, int64_t n, float* recv);

#ifdef __cplusplus
}
#endif
