// Blocked tensor layouts (frost_layout.h): the registry of oneDNN descriptors a Tensor's storage
// may be kept in between image ops, reorders between them and plain NCHW, and the oneDNN state
// the image ops share (dnnl_common.h).
//
// Source: oneDNN 3.2 developer guide, "Memory Format Propagation" (primitives created with `any`
// formats, data kept in the chosen layout between them, reordered only at the edges).
#include <cstdio>
#include <cstdlib>
#include <deque>
#include "dnnl_common.h"
#include "frost_layout.h"
#include "profile.h"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace frost_dnnl {

engine& eng() {
    static engine e(engine::kind::cpu, 0);
    return e;
}

stream& strm() {
    thread_local stream s(eng());
    return s;
}

void fail(const char* what, const error& e) {
    fprintf(stderr, "frost: oneDNN %s failed: %s (status %d)\n", what, e.what(), (int)e.status);
    exit(1);
}

// One slot per argument role, each grown to the largest copy it has held: a buffer kept with
// every cached primitive held about 1 GB at ResNet-18 batch 128, and was shared by threads
// running the same shape.
void* scratch(int slot, size_t bytes) {
    struct Slot {
        void* p = nullptr;
        size_t cap = 0;
        ~Slot() { free(p); }
    };
    thread_local Slot slots[3];
    Slot& s = slots[slot];
    if (bytes > s.cap) {
        free(s.p);
        s.cap = (bytes + 4095) / 4096 * 4096;
        s.p = aligned_alloc(4096, s.cap);
        if (!s.p) { fprintf(stderr, "frost: out of memory (%zu bytes of oneDNN scratch)\n", bytes); exit(1); }
    }
    return s.p;
}

std::mutex& cache_mu() {
    static std::mutex m;
    return m;
}

std::unordered_map<std::string, std::shared_ptr<void>>& cache_map() {
    static std::unordered_map<std::string, std::shared_ptr<void>> m;
    return m;
}

namespace {

// Every descriptor seen (index + 1 is its id), and whether a Tensor may keep it.
struct Entry {
    memory::desc d;
    int block;    // 0: not a tensor layout
};
std::mutex reg_mu;
std::deque<Entry> reg;   // a deque: push_back keeps references to earlier entries valid

// Channel block of d when d is nChw<B>c without padding (B 8 or 16), else 0.
int block_of(const memory::desc& d) {
    if (d.get_ndims() != 4 || d.get_data_type() != dt::f32) return 0;
    if (d.get_format_kind() != memory::format_kind::blocked || d.get_inner_nblks() != 1) return 0;
    if (d.get_inner_idxs()[0] != 1) return 0;
    int64_t b = d.get_inner_blks()[0];
    if (b != 8 && b != 16) return 0;
    auto dims = d.get_dims();
    if (d.get_padded_dims() != dims || dims[1] % b != 0) return 0;
    int64_t c = dims[1], h = dims[2], w = dims[3];
    memory::dims want{c * h * w, h * w * b, w * b, b};
    if (d.get_strides() != want || d.get_submemory_offset() != 0) return 0;
    return (int)b;
}

int64_t intern(const memory::desc& d) {
    std::lock_guard<std::mutex> g(reg_mu);
    for (size_t i = 0; i < reg.size(); i++)
        if (reg[i].d == d) return (int64_t)i + 1;
    reg.push_back({d, block_of(d)});
    return (int64_t)reg.size();
}

const Entry& entry(int64_t id) {
    std::lock_guard<std::mutex> g(reg_mu);
    if (id < 1 || id > (int64_t)reg.size()) {
        fprintf(stderr, "frost: unknown tensor layout %lld\n", (long long)id);
        exit(1);
    }
    return reg[id - 1];   // entries are never removed, so the reference stays valid
}

}  // namespace

bool layouts_on() {
    static const bool on = [] {
        const char* v = getenv("FROST_BLOCKED");
        return !(v && v[0] == '0' && !v[1]);
    }();
    return on;
}

int64_t tensor_layout(const memory::desc& d) {
    if (!layouts_on()) return 0;
    int64_t id = intern(d);
    return entry(id).block ? id : 0;
}

const memory::desc& layout_desc(int64_t h) { return entry(h).d; }

int layout_block(int64_t h) { return entry(h).block; }

memory::desc plain_like(const memory::desc& d) {
    return memory::desc(d.get_dims(), dt::f32, tag::nchw);
}

memory as_desc(const memory::desc& want, int64_t h, const void* p, int slot, const char* what) {
    memory::desc from = h ? layout_desc(h) : plain_like(want);
    if (from == want) return memory(want, eng(), const_cast<void*>(p));
    int64_t a = intern(from), b = intern(want);
    auto r = cached<reorder>("reorder:" + std::to_string(a) + ":" + std::to_string(b), [&] {
        return std::make_shared<reorder>(memory(from, eng(), DNNL_MEMORY_NONE),
                                         memory(want, eng(), DNNL_MEMORY_NONE));
    });
    frost_prof::Scope prof(what, 0);
    memory src(from, eng(), const_cast<void*>(p));
    memory dst(want, eng(), scratch(slot, want.get_size()));
    r->execute(strm(), src, dst);
    return dst;
}

}  // namespace frost_dnnl

using namespace frost_dnnl;

void frost__c_layout_reorder(int64_t from, const float* src, int64_t to, float* dst, int64_t n,
                             int64_t c, int64_t h, int64_t w) {
    try {
        memory::desc plain({n, c, h, w}, dt::f32, tag::nchw);
        const memory::desc& fd = from ? layout_desc(from) : plain;
        const memory::desc& td = to ? layout_desc(to) : plain;
        if (fd.get_dims() != plain.get_dims() || td.get_dims() != plain.get_dims()) {
            fprintf(stderr, "frost: layout %lld or %lld is not of shape [%lld, %lld, %lld, %lld]\n",
                    (long long)from, (long long)to, (long long)n, (long long)c, (long long)h,
                    (long long)w);
            exit(1);
        }
        const char* what = to == 0 ? "dnnl.reorder to plain" : from == 0 ? "dnnl.reorder to blocked"
                                                                      : "dnnl.reorder relayout";
        frost_prof::Scope prof(what, 0);
        int64_t a = intern(fd), b = intern(td);
        auto r = cached<reorder>("reorder:" + std::to_string(a) + ":" + std::to_string(b), [&] {
            return std::make_shared<reorder>(memory(fd, eng(), DNNL_MEMORY_NONE),
                                             memory(td, eng(), DNNL_MEMORY_NONE));
        });
        memory sm(fd, eng(), const_cast<float*>(src)), dm(td, eng(), dst);
        r->execute(strm(), sm, dm);
        strm().wait();
    } catch (const error& e) { fail("reorder", e); }
}

int64_t frost__c_layout_block(int64_t layout) { return layout ? layout_block(layout) : 1; }
