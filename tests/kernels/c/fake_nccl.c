/* fake_nccl.c: a stand-in libnccl.so.2 for the fake driver (fake_cuda.c), whose "device" memory
 * is host memory, so frost/distributed's NCCL path runs in CI. It implements the entry points
 * native/nccl.cpp looks up, with nccl.h's signatures (NCCL 2.18), on host buffers through MPI
 * underneath (MPI_COMM_WORLD, which the program has initialised; none in a world of one); the
 * stream argument is ignored, as the fake driver runs everything synchronously. Only float32.
 * Calls are logged to $FAKE_NCCL_LOG. ncclCommInitRank checks that every rank got rank 0's id. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int ncclResult_t;
typedef struct { char internal[128]; } ncclUniqueId;
typedef struct { int nranks, rank; MPI_Comm comm; } comm_t;
typedef comm_t* ncclComm_t;
enum { ok = 0, system_error = 2, invalid_argument = 4, invalid_usage = 5 };
enum { float32 = 7, op_sum = 0, op_prod = 1, op_max = 2, op_min = 3, op_avg = 4 };

static void logf_(const char* fmt, long a, long b) {
    const char* p = getenv("FAKE_NCCL_LOG");
    if (!p) return;
    FILE* f = fopen(p, "a");
    fprintf(f, fmt, a, b);
    fputc('\n', f);
    fclose(f);
}

const char* ncclGetErrorString(ncclResult_t r) {
    return r == ok ? "no error" : r == invalid_argument ? "invalid argument (fake NCCL)"
         : r == invalid_usage ? "invalid usage (fake NCCL)" : "system error (fake NCCL)";
}

ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
    memset(id, 0, sizeof *id);
    snprintf(id->internal, sizeof id->internal, "fake-nccl %d", (int)getpid());
    return ok;
}

ncclResult_t ncclCommInitRank(ncclComm_t* out, int nranks, ncclUniqueId id, int rank) {
    comm_t* c = calloc(1, sizeof *c);
    c->nranks = nranks;
    c->rank = rank;
    if (nranks > 1) {
        int up = 0, size = 0, me = -1;
        MPI_Initialized(&up);
        if (!up) return invalid_usage;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        if (size != nranks || me != rank) return invalid_argument;
        ncclUniqueId root = id;
        MPI_Bcast(&root, sizeof root, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (memcmp(&root, &id, sizeof id) != 0) return invalid_argument;
        MPI_Comm_dup(MPI_COMM_WORLD, &c->comm);
    }
    logf_("init %ld %ld", nranks, rank);
    *out = c;
    return ok;
}

ncclResult_t ncclCommDestroy(ncclComm_t c) {
    int done = 0;
    if (c->nranks > 1) {
        MPI_Finalized(&done);
        if (!done) MPI_Comm_free(&c->comm);
    }
    free(c);
    return ok;
}

static MPI_Op mpi_op(int op) {
    return op == op_prod ? MPI_PROD : op == op_max ? MPI_MAX : op == op_min ? MPI_MIN : MPI_SUM;
}

ncclResult_t ncclAllReduce(const void* send, void* recv, size_t count, int type, int op,
                           ncclComm_t c, void* stream) {
    (void)stream;
    if (type != float32 || op < 0 || op > op_avg || count > 0x7fffffff) return invalid_argument;
    logf_("all_reduce %ld %ld", (long)count, op);
    if (c->nranks > 1)
        MPI_Allreduce(send == recv ? MPI_IN_PLACE : send, recv, (int)count, MPI_FLOAT, mpi_op(op), c->comm);
    else if (send != recv)
        memmove(recv, send, count * sizeof(float));
    if (op == op_avg)
        for (size_t i = 0; i < count; i++) ((float*)recv)[i] /= (float)c->nranks;
    return ok;
}

ncclResult_t ncclBroadcast(const void* send, void* recv, size_t count, int type, int root,
                           ncclComm_t c, void* stream) {
    (void)stream;
    if (type != float32 || root < 0 || root >= c->nranks || count > 0x7fffffff) return invalid_argument;
    logf_("broadcast %ld %ld", (long)count, root);
    if (c->rank == root && send != recv) memmove(recv, send, count * sizeof(float));
    if (c->nranks > 1) MPI_Bcast(recv, (int)count, MPI_FLOAT, root, c->comm);
    return ok;
}

ncclResult_t ncclAllGather(const void* send, void* recv, size_t count, int type, ncclComm_t c,
                           void* stream) {
    (void)stream;
    if (type != float32 || count > 0x7fffffff) return invalid_argument;
    logf_("all_gather %ld %ld", (long)count, c->nranks);
    if (c->nranks > 1)
        MPI_Allgather(send, (int)count, MPI_FLOAT, recv, (int)count, MPI_FLOAT, c->comm);
    else if (send != recv)
        memmove(recv, send, count * sizeof(float));
    return ok;
}
