// The thread-local head of the Neve frame chain. Compiled code reads and writes it with
// initial-exec TLS, so the definition must use the same model.
#include "neve_rt.h"

__thread NvFrame* nv_top_frame __attribute__((tls_model("initial-exec"))) = nullptr;

__thread const NvForeignSite* nv_foreign_site __attribute__((tls_model("initial-exec"))) = nullptr;
