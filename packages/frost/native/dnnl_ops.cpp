// Convolution, pooling and batch normalization through oneDNN 3.2 (v3 API, CPU engine, OpenMP
// threads). Plain NCHW / OIHW memory wraps the caller's buffers, and so does memory already in a
// primitive's blocked layout (frost_layout.h: a Tensor kept blocked between image ops);
// primitives are cached per shape (creating one JITs code), so a training loop creates each
// primitive once; other blocked copies use per-thread scratch (dnnl_common.h).
//
// Sources: oneDNN 3.2 developer guide, "Convolution", "Pooling", "Batch Normalization"
// (primitive descriptors for forward_training with hints for backward, workspace for max pooling).
#include <dnnl.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include "dnnl_common.h"
#include "frost.h"
#include "frost_layout.h"
#include "profile.h"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

using frost_dnnl::cached;
using frost_dnnl::eng;
using frost_dnnl::fail;
using frost_dnnl::scratch;
using frost_dnnl::strm;

std::string key_of(const char* op, std::initializer_list<int64_t> xs) {
    std::string k(op);
    for (int64_t x : xs) { k += ':'; k += std::to_string(x); }
    return k;
}

memory::desc md4(int64_t a, int64_t b, int64_t c, int64_t d, tag t = tag::nchw) {
    return memory::desc({a, b, c, d}, dt::f32, t);
}

memory mem(const memory::desc& d, const void* p) { return memory(d, eng(), const_cast<void*>(p)); }

// A primitive argument in the primitive's own memory format (`any` lets oneDNN pick a blocked
// layout such as nChw16c, which its JIT kernels need) next to the caller's plain NCHW/OIHW
// buffer: when the formats differ, reorder primitives are kept with the primitive and the
// blocked copy lives in the calling thread's scratch slot for this argument's role.
struct Blocked {
    memory::desc user, prim;
    bool same = true;
    int slot = 0;
    reorder to_prim, to_user;
    const char* what = "dnnl.reorder";   // the profile's name for this argument's copies

    Blocked() = default;
    Blocked(const memory::desc& u, const memory::desc& p, bool input, bool output, int role,
            const char* name)
        : user(u), prim(p), same(u == p), slot(role), what(name) {
        if (same) return;
        memory um(u, eng(), DNNL_MEMORY_NONE), pm(p, eng(), DNNL_MEMORY_NONE);
        if (input) to_prim = reorder(um, pm);
        if (output) to_user = reorder(pm, um);
    }
    memory buf() { return memory(prim, eng(), scratch(slot, prim.get_size())); }
    // The primitive's view of the caller's input at p (reordered into scratch when blocked).
    memory in(const void* p) {
        memory um = mem(user, p);
        if (same) return um;
        frost_prof::Scope prof(what, 0);
        memory b = buf();
        to_prim.execute(strm(), um, b);
        return b;
    }
    // Where the primitive writes an output meant for the caller's buffer at p.
    memory out(void* p) { return same ? mem(user, p) : buf(); }
    // Copy a blocked output (in scratch) back into the caller's buffer at p.
    void back(void* p) {
        if (same) return;
        frost_prof::Scope prof(what, 0);
        memory um = mem(user, p), b = buf();
        to_user.execute(strm(), b, um);
    }
};

struct Conv {
    convolution_forward fwd;
    convolution_backward_data bwd_data;
    convolution_backward_weights bwd_w;
    Blocked f_src, f_wei, f_dst;          // forward
    Blocked d_dst, d_wei, d_src;          // backward data
    Blocked w_src, w_dst, w_wei;          // backward weights
    memory zero_bias, scratch_bias;       // forward without bias, backward without bias
};

std::shared_ptr<Conv> conv_of(int64_t n, int64_t c, int64_t h, int64_t w, int64_t oc, int64_t kh,
                              int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw) {
    return cached<Conv>(key_of("conv", {n, c, h, w, oc, kh, kw, sh, sw, ph, pw}), [&] {
        int64_t oh = (h + 2 * ph - kh) / sh + 1, ow = (w + 2 * pw - kw) / sw + 1;
        auto src = md4(n, c, h, w), wei = md4(oc, c, kh, kw, tag::oihw), dst = md4(n, oc, oh, ow);
        auto any_src = md4(n, c, h, w, tag::any), any_wei = md4(oc, c, kh, kw, tag::any);
        auto any_dst = md4(n, oc, oh, ow, tag::any);
        auto bias = memory::desc({oc}, dt::f32, tag::x);
        memory::dims strides{sh, sw}, pad{ph, pw};
        auto p = std::make_shared<Conv>();
        auto fwd_pd = convolution_forward::primitive_desc(eng(), prop_kind::forward_training,
            algorithm::convolution_direct, any_src, any_wei, bias, any_dst, strides, pad, pad);
        p->fwd = convolution_forward(fwd_pd);
        p->f_src = Blocked(src, fwd_pd.src_desc(), true, false, 0, "dnnl.reorder fwd src");
        p->f_wei = Blocked(wei, fwd_pd.weights_desc(), true, false, 1, "dnnl.reorder fwd weights");
        p->f_dst = Blocked(dst, fwd_pd.dst_desc(), false, true, 2, "dnnl.reorder fwd dst");
        auto bd_pd = convolution_backward_data::primitive_desc(eng(),
            algorithm::convolution_direct, any_src, any_wei, any_dst, strides, pad, pad, fwd_pd);
        // Strided backward-data picks channels-last (brgconv_strided), which a Tensor does not
        // keep: ask for the forward's blocked layouts instead, so gradients stay blocked too.
        if (!frost_dnnl::tensor_layout(bd_pd.diff_src_desc()) &&
            frost_dnnl::tensor_layout(fwd_pd.src_desc()) && frost_dnnl::tensor_layout(fwd_pd.dst_desc())) {
            try {
                bd_pd = convolution_backward_data::primitive_desc(eng(),
                    algorithm::convolution_direct, fwd_pd.src_desc(), any_wei, fwd_pd.dst_desc(),
                    strides, pad, pad, fwd_pd);
            } catch (const error&) {}   // none for those layouts: keep the first choice
        }
        p->bwd_data = convolution_backward_data(bd_pd);
        p->d_dst = Blocked(dst, bd_pd.diff_dst_desc(), true, false, 2, "dnnl.reorder bwd_data diff_dst");
        p->d_wei = Blocked(wei, bd_pd.weights_desc(), true, false, 1, "dnnl.reorder bwd_data weights");
        p->d_src = Blocked(src, bd_pd.diff_src_desc(), false, true, 0, "dnnl.reorder bwd_data diff_src");
        auto bw_pd = convolution_backward_weights::primitive_desc(eng(),
            algorithm::convolution_direct, any_src, any_wei, bias, any_dst, strides, pad, pad,
            fwd_pd);
        p->bwd_w = convolution_backward_weights(bw_pd);
        p->w_src = Blocked(src, bw_pd.src_desc(), true, false, 0, "dnnl.reorder bwd_weights src");
        p->w_dst = Blocked(dst, bw_pd.diff_dst_desc(), true, false, 2, "dnnl.reorder bwd_weights diff_dst");
        p->w_wei = Blocked(wei, bw_pd.diff_weights_desc(), false, true, 1, "dnnl.reorder bwd_weights diff_weights");
        p->zero_bias = memory(bias, eng());
        memset(p->zero_bias.get_data_handle(), 0, oc * sizeof(float));
        p->scratch_bias = memory(bias, eng());
        if (getenv("FROST_VERBOSE_DNNL"))
            fprintf(stderr, "frost conv %s: fwd %s, bwd data %s, bwd weights %s\n",
                    key_of("", {n, c, h, w, oc, kh, kw}).c_str(), fwd_pd.impl_info_str(),
                    bd_pd.impl_info_str(), bw_pd.impl_info_str());
        return p;
    });
}

// Multiply-adds of one convolution pass (forward, backward data and backward weights alike).
double conv_flops(int64_t n, int64_t c, int64_t h, int64_t w, int64_t oc, int64_t kh, int64_t kw,
                  int64_t sh, int64_t sw, int64_t ph, int64_t pw) {
    int64_t oh = (h + 2 * ph - kh) / sh + 1, ow = (w + 2 * pw - kw) / sw + 1;
    return 2.0 * n * oc * oh * ow * c * kh * kw;
}

}  // namespace

// The layout (frost_layout.h) a Tensor may keep conv2d's output (which 0) or its input's
// gradient (which 1) in: the primitive's own, or 0 when that is not a tensor layout.
int64_t frost__c_conv2d_layout(int32_t which, int64_t n, int64_t c, int64_t h, int64_t wd,
                               int64_t oc, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                               int64_t ph, int64_t pw) {
    try {
        auto p = conv_of(n, c, h, wd, oc, kh, kw, sh, sw, ph, pw);
        return frost_dnnl::tensor_layout(which == 0 ? p->f_dst.prim : p->d_src.prim);
    } catch (const error& e) { fail("convolution", e); }
}

void frost__c_conv2d_forward(const float* x, const float* w, const float* b, float* y, int64_t n,
                             int64_t c, int64_t h, int64_t wd, int64_t oc, int64_t kh, int64_t kw,
                             int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t xl,
                             int64_t yl) {
    frost_prof::Scope prof("dnnl.conv_fwd", conv_flops(n, c, h, wd, oc, kh, kw, sh, sw, ph, pw));
    try {
        auto p = conv_of(n, c, h, wd, oc, kh, kw, sh, sw, ph, pw);
        memory bias = b ? mem(memory::desc({oc}, dt::f32, tag::x), b) : p->zero_bias;
        memory src = xl ? frost_dnnl::as_desc(p->f_src.prim, xl, x, 0, "dnnl.reorder fwd src")
                        : p->f_src.in(x);
        p->fwd.execute(strm(), {{DNNL_ARG_SRC, src},
                                {DNNL_ARG_WEIGHTS, p->f_wei.in(w)},
                                {DNNL_ARG_BIAS, bias},
                                {DNNL_ARG_DST, yl ? mem(p->f_dst.prim, y) : p->f_dst.out(y)}});
        if (!yl) p->f_dst.back(y);
        strm().wait();
    } catch (const error& e) { fail("convolution forward", e); }
}

// Both backward passes from one reorder of dy when their primitives want it in the same
// layout (as oneDNN's hints from the forward make them here): dx unless NULL, then dw (and db
// unless NULL) unless dw is NULL. xl, dyl, dxl: the layouts of x, dy and dx (dxl 0 or
// frost__c_conv2d_layout(1, ...)).
void frost__c_conv2d_backward(const float* x, const float* dy, const float* w, float* dx,
                              float* dw, float* db, int64_t n, int64_t c, int64_t h, int64_t wd,
                              int64_t oc, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                              int64_t ph, int64_t pw, int64_t xl, int64_t dyl, int64_t dxl) {
    const double flops = conv_flops(n, c, h, wd, oc, kh, kw, sh, sw, ph, pw);
    try {
        auto p = conv_of(n, c, h, wd, oc, kh, kw, sh, sw, ph, pw);
        memory g_data;                       // dy as backward-data read it, when it ran
        if (dx) {
            frost_prof::Scope prof("dnnl.conv_bwd_data", flops);
            g_data = dyl ? frost_dnnl::as_desc(p->d_dst.prim, dyl, dy, 2,
                                               "dnnl.reorder bwd_data diff_dst")
                         : p->d_dst.in(dy);
            p->bwd_data.execute(strm(), {{DNNL_ARG_DIFF_DST, g_data},
                                         {DNNL_ARG_WEIGHTS, p->d_wei.in(w)},
                                         {DNNL_ARG_DIFF_SRC, dxl ? mem(p->d_src.prim, dx)
                                                                 : p->d_src.out(dx)}});
            if (!dxl) p->d_src.back(dx);
        }
        if (dw) {
            frost_prof::Scope prof("dnnl.conv_bwd_weights", flops);
            // g_data still holds dy: both diff_dst copies use the destination-side slot
            bool shared = dx && p->w_dst.prim == p->d_dst.prim;
            memory g = shared ? g_data
                     : dyl    ? frost_dnnl::as_desc(p->w_dst.prim, dyl, dy, 2,
                                                    "dnnl.reorder bwd_weights diff_dst")
                              : p->w_dst.in(dy);
            memory src = xl ? frost_dnnl::as_desc(p->w_src.prim, xl, x, 0,
                                                  "dnnl.reorder bwd_weights src")
                            : p->w_src.in(x);
            memory bias = db ? mem(memory::desc({oc}, dt::f32, tag::x), db) : p->scratch_bias;
            p->bwd_w.execute(strm(), {{DNNL_ARG_SRC, src},
                                      {DNNL_ARG_DIFF_DST, g},
                                      {DNNL_ARG_DIFF_WEIGHTS, p->w_wei.out(dw)},
                                      {DNNL_ARG_DIFF_BIAS, bias}});
            p->w_wei.back(dw);
        }
        strm().wait();
    } catch (const error& e) { fail("convolution backward", e); }
}

namespace {

struct Pool {
    pooling_forward::primitive_desc fwd_pd;
    pooling_forward fwd;
    pooling_backward::primitive_desc bwd_pd;
    pooling_backward bwd;
};

std::shared_ptr<Pool> pool_of(int32_t kind, int64_t n, int64_t c, int64_t h, int64_t w, int64_t kh,
                              int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw) {
    return cached<Pool>(key_of("pool", {kind, n, c, h, w, kh, kw, sh, sw, ph, pw}), [&] {
        int64_t oh = (h + 2 * ph - kh) / sh + 1, ow = (w + 2 * pw - kw) / sw + 1;
        auto src = md4(n, c, h, w), dst = md4(n, c, oh, ow);
        auto alg = kind == 0 ? algorithm::pooling_max : algorithm::pooling_avg_include_padding;
        memory::dims strides{sh, sw}, kernel{kh, kw}, dil{0, 0}, pad{ph, pw};
        auto p = std::make_shared<Pool>();
        p->fwd_pd = pooling_forward::primitive_desc(eng(), prop_kind::forward_training, alg, src,
                                                    dst, strides, kernel, dil, pad, pad);
        p->fwd = pooling_forward(p->fwd_pd);
        p->bwd_pd = pooling_backward::primitive_desc(eng(), alg, src, dst, strides, kernel, dil,
                                                     pad, pad, p->fwd_pd);
        p->bwd = pooling_backward(p->bwd_pd);
        return p;
    });
}

}  // namespace

int64_t frost__c_pool2d_ws_size(int32_t kind, int64_t n, int64_t c, int64_t h, int64_t wd,
                                int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                                int64_t pw) {
    try {
        auto p = pool_of(kind, n, c, h, wd, kh, kw, sh, sw, ph, pw);
        size_t bytes = p->fwd_pd.workspace_desc().get_size();
        return (int64_t)((bytes + 3) / 4);
    } catch (const error& e) { fail("pooling", e); }
}

void frost__c_pool2d_forward(int32_t kind, const float* x, float* y, float* ws, int64_t n,
                             int64_t c, int64_t h, int64_t wd, int64_t kh, int64_t kw, int64_t sh,
                             int64_t sw, int64_t ph, int64_t pw) {
    frost_prof::Scope prof(kind == 0 ? "dnnl.max_pool_fwd" : "dnnl.avg_pool_fwd", 0);
    try {
        auto p = pool_of(kind, n, c, h, wd, kh, kw, sh, sw, ph, pw);
        auto& pd = p->fwd_pd;
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, mem(pd.src_desc(), x)},
                                             {DNNL_ARG_DST, mem(pd.dst_desc(), y)}};
        if (pd.workspace_desc().get_size() > 0)
            args.insert({DNNL_ARG_WORKSPACE, mem(pd.workspace_desc(), ws)});
        p->fwd.execute(strm(), args);
        strm().wait();
    } catch (const error& e) { fail("pooling forward", e); }
}

void frost__c_pool2d_backward(int32_t kind, const float* dy, float* dx, const float* ws, int64_t n,
                              int64_t c, int64_t h, int64_t wd, int64_t kh, int64_t kw,
                              int64_t sh, int64_t sw, int64_t ph, int64_t pw) {
    frost_prof::Scope prof(kind == 0 ? "dnnl.max_pool_bwd" : "dnnl.avg_pool_bwd", 0);
    try {
        auto p = pool_of(kind, n, c, h, wd, kh, kw, sh, sw, ph, pw);
        auto& pd = p->bwd_pd;
        std::unordered_map<int, memory> args{{DNNL_ARG_DIFF_DST, mem(pd.diff_dst_desc(), dy)},
                                             {DNNL_ARG_DIFF_SRC, mem(pd.diff_src_desc(), dx)}};
        if (p->fwd_pd.workspace_desc().get_size() > 0)
            args.insert({DNNL_ARG_WORKSPACE, mem(p->fwd_pd.workspace_desc(), ws)});
        p->bwd.execute(strm(), args);
        strm().wait();
    } catch (const error& e) { fail("pooling backward", e); }
}

// Batch normalization on plain NCHW memory. oneDNN 3.2 only has its slow reference kernels for
// NCHW (ncsp) batch norm (a third of a CNN step here), so these are plain loops instead, one
// channel per OpenMP iteration, accumulating in double as PyTorch's CPU kernels do
// (at::acc_type<float> is double on the CPU).

namespace {

// Sums over a plane in float runs of 1024 (vectorised), the runs added in double.
inline double sum_of(const float* p, int64_t len) {
    double s = 0;
    for (int64_t q0 = 0; q0 < len; q0 += 1024) {
        int64_t q1 = q0 + 1024 < len ? q0 + 1024 : len;
        float part = 0;
        #pragma omp simd reduction(+ : part)
        for (int64_t q = q0; q < q1; q++) part += p[q];
        s += part;
    }
    return s;
}

inline double sq_dev_of(const float* p, int64_t len, float mu) {
    double s = 0;
    for (int64_t q0 = 0; q0 < len; q0 += 1024) {
        int64_t q1 = q0 + 1024 < len ? q0 + 1024 : len;
        float part = 0;
        #pragma omp simd reduction(+ : part)
        for (int64_t q = q0; q < q1; q++) { float d = p[q] - mu; part += d * d; }
        s += part;
    }
    return s;
}

// sum g and sum g (x - mu) over a plane; with y (a fused ReLU's output) g counts only where
// y > 0, the gradient the separate ReLU backward would have passed on.
inline void grad_sums(const float* g, const float* x, const float* y, int64_t len, float mu,
                      double& sg, double& sgx) {
    for (int64_t q0 = 0; q0 < len; q0 += 1024) {
        int64_t q1 = q0 + 1024 < len ? q0 + 1024 : len;
        float p1 = 0, p2 = 0;
        if (y) {
            #pragma omp simd reduction(+ : p1, p2)
            for (int64_t q = q0; q < q1; q++) {
                // g read unconditionally: a select, so the loop vectorises (no branch)
                float gv = g[q];
                float gq = y[q] > 0.0f ? gv : 0.0f;
                p1 += gq;
                p2 += gq * (x[q] - mu);
            }
        } else {
            #pragma omp simd reduction(+ : p1, p2)
            for (int64_t q = q0; q < q1; q++) { p1 += g[q]; p2 += g[q] * (x[q] - mu); }
        }
        sg += p1;
        sgx += p2;
    }
}

}  // namespace

void frost__c_batch_norm_forward(int32_t training, const float* x, float* y, const float* scale,
                                 const float* shift, float* mean, float* var, int64_t n, int64_t c,
                                 int64_t h, int64_t wd, float eps, int32_t relu, int64_t layout) {
    frost_prof::Scope prof("batch_norm_fwd", 0);
    if (layout) {
        frost_blocked::bn_forward(frost_dnnl::layout_block(layout), training, x, y, scale, shift,
                                  mean, var, n, c, h, wd, eps, relu);
        return;
    }
    const int64_t plane = h * wd, m = n * plane;
    #pragma omp parallel for schedule(static) if (m * c > 16384)
    for (int64_t j = 0; j < c; j++) {
        float mu, vr;
        if (training) {
            double s = 0;
            for (int64_t i = 0; i < n; i++) s += sum_of(x + (i * c + j) * plane, plane);
            float mf = m ? (float)(s / (double)m) : 0.0f;
            double ss = 0;
            for (int64_t i = 0; i < n; i++) ss += sq_dev_of(x + (i * c + j) * plane, plane, mf);
            mu = mf;
            vr = m ? (float)(ss / (double)m) : 0.0f;
            mean[j] = mu;
            var[j] = vr;
        } else {
            mu = mean[j];
            vr = var[j];
        }
        float a = scale[j] / std::sqrt(vr + eps);
        float b = shift[j] - mu * a;
        for (int64_t i = 0; i < n; i++) {
            const float* xp = x + (i * c + j) * plane;
            float* yp = y + (i * c + j) * plane;
            if (relu)
                for (int64_t q = 0; q < plane; q++) yp[q] = std::max(xp[q] * a + b, 0.0f);
            else
                for (int64_t q = 0; q < plane; q++) yp[q] = xp[q] * a + b;
        }
    }
}

void frost__c_batch_norm_backward(const float* x, const float* dy, const float* scale,
                                  const float* mean, const float* var, float* dx, float* dscale,
                                  float* dshift, int64_t n, int64_t c, int64_t h, int64_t wd,
                                  float eps, const float* y, int64_t layout) {
    frost_prof::Scope prof("batch_norm_bwd", 0);
    if (layout) {
        frost_blocked::bn_backward(frost_dnnl::layout_block(layout), x, dy, scale, mean, var, dx,
                                   dscale, dshift, n, c, h, wd, eps, y);
        return;
    }
    const int64_t plane = h * wd, m = n * plane;
    #pragma omp parallel for schedule(static) if (m * c > 16384)
    for (int64_t j = 0; j < c; j++) {
        const float mu = mean[j];
        const float invstd = 1.0f / std::sqrt(var[j] + eps);
        double sdy = 0, sdyx = 0;
        for (int64_t i = 0; i < n; i++) {
            const int64_t o = (i * c + j) * plane;
            grad_sums(dy + o, x + o, y ? y + o : nullptr, plane, mu, sdy, sdyx);
        }
        dscale[j] = (float)(sdyx * invstd);
        dshift[j] = (float)sdy;
        // dx = w invstd (dy - mean(dy) - (x - mu) invstd^2 mean(dy (x - mu)))
        const float a = scale[j] * invstd;
        const float gmean = m ? (float)(sdy / (double)m) : 0.0f;
        const float k = m ? (float)(sdyx / (double)m) * invstd * invstd : 0.0f;
        for (int64_t i = 0; i < n; i++) {
            const float* xp = x + (i * c + j) * plane;
            const float* gp = dy + (i * c + j) * plane;
            float* dp = dx + (i * c + j) * plane;
            if (y) {
                const float* yp = y + (i * c + j) * plane;
                #pragma omp simd
                for (int64_t q = 0; q < plane; q++) {
                    float gv = gp[q];
                    dp[q] = ((yp[q] > 0.0f ? gv : 0.0f) - gmean - (xp[q] - mu) * k) * a;
                }
            } else {
                for (int64_t q = 0; q < plane; q++) dp[q] = (gp[q] - gmean - (xp[q] - mu) * k) * a;
            }
        }
    }
}
