// Convolution, pooling and batch normalization through oneDNN 3.2 (v3 API, CPU engine, OpenMP
// threads). Plain NCHW / OIHW memory wraps the caller's buffers; primitives are cached per shape
// (creating one JITs code), so a training loop creates each primitive once.
//
// Sources: oneDNN 3.2 developer guide, "Convolution", "Pooling", "Batch Normalization"
// (primitive descriptors for forward_training with hints for backward, workspace for max pooling).
#include <dnnl.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include "frost.h"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

engine& eng() {
    static engine e(engine::kind::cpu, 0);
    return e;
}

stream& strm() {
    thread_local stream s(eng());
    return s;
}

std::mutex cache_mu;
std::unordered_map<std::string, std::shared_ptr<void>> cache;

// The cached object of type T under key, made by make() the first time.
template <class T, class F>
std::shared_ptr<T> cached(const std::string& key, F make) {
    std::lock_guard<std::mutex> g(cache_mu);
    auto it = cache.find(key);
    if (it != cache.end()) return std::static_pointer_cast<T>(it->second);
    std::shared_ptr<T> v = make();
    cache[key] = v;
    return v;
}

std::string key_of(const char* op, std::initializer_list<int64_t> xs) {
    std::string k(op);
    for (int64_t x : xs) { k += ':'; k += std::to_string(x); }
    return k;
}

memory::desc md4(int64_t a, int64_t b, int64_t c, int64_t d, tag t = tag::nchw) {
    return memory::desc({a, b, c, d}, dt::f32, t);
}

memory mem(const memory::desc& d, const void* p) { return memory(d, eng(), const_cast<void*>(p)); }

[[noreturn]] void fail(const char* what, const error& e) {
    fprintf(stderr, "frost: oneDNN %s failed: %s (status %d)\n", what, e.what(), (int)e.status);
    exit(1);
}

struct Conv {
    convolution_forward::primitive_desc fwd_pd;
    convolution_forward fwd, fwd_nobias;
    convolution_backward_data::primitive_desc bwd_data_pd;
    convolution_backward_data bwd_data;
    convolution_backward_weights::primitive_desc bwd_w_pd, bwd_w_nobias_pd;
    convolution_backward_weights bwd_w, bwd_w_nobias;
};

std::shared_ptr<Conv> conv_of(int64_t n, int64_t c, int64_t h, int64_t w, int64_t oc, int64_t kh,
                              int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw) {
    return cached<Conv>(key_of("conv", {n, c, h, w, oc, kh, kw, sh, sw, ph, pw}), [&] {
        int64_t oh = (h + 2 * ph - kh) / sh + 1, ow = (w + 2 * pw - kw) / sw + 1;
        auto src = md4(n, c, h, w), wei = md4(oc, c, kh, kw, tag::oihw), dst = md4(n, oc, oh, ow);
        auto bias = memory::desc({oc}, dt::f32, tag::x);
        memory::dims strides{sh, sw}, pad{ph, pw};
        auto p = std::make_shared<Conv>();
        p->fwd_pd = convolution_forward::primitive_desc(eng(), prop_kind::forward_training,
            algorithm::convolution_direct, src, wei, bias, dst, strides, pad, pad);
        p->fwd = convolution_forward(p->fwd_pd);
        auto nb_pd = convolution_forward::primitive_desc(eng(), prop_kind::forward_training,
            algorithm::convolution_direct, src, wei, dst, strides, pad, pad);
        p->fwd_nobias = convolution_forward(nb_pd);
        p->bwd_data_pd = convolution_backward_data::primitive_desc(eng(),
            algorithm::convolution_direct, src, wei, dst, strides, pad, pad, p->fwd_pd);
        p->bwd_data = convolution_backward_data(p->bwd_data_pd);
        p->bwd_w_pd = convolution_backward_weights::primitive_desc(eng(),
            algorithm::convolution_direct, src, wei, bias, dst, strides, pad, pad, p->fwd_pd);
        p->bwd_w = convolution_backward_weights(p->bwd_w_pd);
        p->bwd_w_nobias_pd = convolution_backward_weights::primitive_desc(eng(),
            algorithm::convolution_direct, src, wei, dst, strides, pad, pad, nb_pd);
        p->bwd_w_nobias = convolution_backward_weights(p->bwd_w_nobias_pd);
        return p;
    });
}

}  // namespace

void frost__c_conv2d_forward(const float* x, const float* w, const float* b, float* y, int64_t n,
                             int64_t c, int64_t h, int64_t wd, int64_t oc, int64_t kh, int64_t kw,
                             int64_t sh, int64_t sw, int64_t ph, int64_t pw) {
    try {
        auto p = conv_of(n, c, h, wd, oc, kh, kw, sh, sw, ph, pw);
        auto& pd = p->fwd_pd;
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, mem(pd.src_desc(), x)},
                                             {DNNL_ARG_WEIGHTS, mem(pd.weights_desc(), w)},
                                             {DNNL_ARG_DST, mem(pd.dst_desc(), y)}};
        if (b) {
            args.insert({DNNL_ARG_BIAS, mem(pd.bias_desc(), b)});
            p->fwd.execute(strm(), args);
        } else {
            p->fwd_nobias.execute(strm(), args);
        }
        strm().wait();
    } catch (const error& e) { fail("convolution forward", e); }
}

void frost__c_conv2d_backward_data(const float* dy, const float* w, float* dx, int64_t n,
                                   int64_t c, int64_t h, int64_t wd, int64_t oc, int64_t kh,
                                   int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw) {
    try {
        auto p = conv_of(n, c, h, wd, oc, kh, kw, sh, sw, ph, pw);
        auto& pd = p->bwd_data_pd;
        p->bwd_data.execute(strm(), {{DNNL_ARG_DIFF_DST, mem(pd.diff_dst_desc(), dy)},
                                     {DNNL_ARG_WEIGHTS, mem(pd.weights_desc(), w)},
                                     {DNNL_ARG_DIFF_SRC, mem(pd.diff_src_desc(), dx)}});
        strm().wait();
    } catch (const error& e) { fail("convolution backward (data)", e); }
}

void frost__c_conv2d_backward_weights(const float* x, const float* dy, float* dw, float* db,
                                      int64_t n, int64_t c, int64_t h, int64_t wd, int64_t oc,
                                      int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                                      int64_t pw) {
    try {
        auto p = conv_of(n, c, h, wd, oc, kh, kw, sh, sw, ph, pw);
        auto& pd = db ? p->bwd_w_pd : p->bwd_w_nobias_pd;
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, mem(pd.src_desc(), x)},
                                             {DNNL_ARG_DIFF_DST, mem(pd.diff_dst_desc(), dy)},
                                             {DNNL_ARG_DIFF_WEIGHTS, mem(pd.diff_weights_desc(), dw)}};
        if (db) {
            args.insert({DNNL_ARG_DIFF_BIAS, mem(pd.diff_bias_desc(), db)});
            p->bwd_w.execute(strm(), args);
        } else {
            p->bwd_w_nobias.execute(strm(), args);
        }
        strm().wait();
    } catch (const error& e) { fail("convolution backward (weights)", e); }
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

namespace {

struct BN {
    batch_normalization_forward::primitive_desc train_pd, infer_pd;
    batch_normalization_forward train, infer;
    batch_normalization_backward::primitive_desc bwd_pd;
    batch_normalization_backward bwd;
};

std::shared_ptr<BN> bn_of(int64_t n, int64_t c, int64_t h, int64_t w, float eps) {
    int64_t eps_bits;
    static_assert(sizeof(float) <= sizeof(int64_t), "");
    eps_bits = 0;
    memcpy(&eps_bits, &eps, sizeof eps);
    return cached<BN>(key_of("bn", {n, c, h, w, eps_bits}), [&] {
        auto src = md4(n, c, h, w);
        auto flags = normalization_flags::use_scale | normalization_flags::use_shift;
        auto p = std::make_shared<BN>();
        p->train_pd = batch_normalization_forward::primitive_desc(eng(),
            prop_kind::forward_training, src, src, eps, flags);
        p->train = batch_normalization_forward(p->train_pd);
        p->infer_pd = batch_normalization_forward::primitive_desc(eng(),
            prop_kind::forward_inference, src, src, eps, flags | normalization_flags::use_global_stats);
        p->infer = batch_normalization_forward(p->infer_pd);
        p->bwd_pd = batch_normalization_backward::primitive_desc(eng(), prop_kind::backward, src,
            src, src, eps, flags, p->train_pd);
        p->bwd = batch_normalization_backward(p->bwd_pd);
        return p;
    });
}

}  // namespace

void frost__c_batch_norm_forward(int32_t training, const float* x, float* y, const float* scale,
                                 const float* shift, float* mean, float* var, int64_t n, int64_t c,
                                 int64_t h, int64_t wd, float eps) {
    try {
        auto p = bn_of(n, c, h, wd, eps);
        auto& pd = training ? p->train_pd : p->infer_pd;
        auto cd = memory::desc({c}, dt::f32, tag::x);
        std::unordered_map<int, memory> args{
            {DNNL_ARG_SRC, mem(pd.src_desc(), x)}, {DNNL_ARG_DST, mem(pd.dst_desc(), y)},
            {DNNL_ARG_SCALE, mem(cd, scale)}, {DNNL_ARG_SHIFT, mem(cd, shift)},
            {DNNL_ARG_MEAN, mem(pd.mean_desc(), mean)}, {DNNL_ARG_VARIANCE, mem(pd.variance_desc(), var)}};
        (training ? p->train : p->infer).execute(strm(), args);
        strm().wait();
    } catch (const error& e) { fail("batch normalization forward", e); }
}

void frost__c_batch_norm_backward(const float* x, const float* dy, const float* scale,
                                  const float* mean, const float* var, float* dx, float* dscale,
                                  float* dshift, int64_t n, int64_t c, int64_t h, int64_t wd,
                                  float eps) {
    try {
        auto p = bn_of(n, c, h, wd, eps);
        auto& pd = p->bwd_pd;
        auto cd = memory::desc({c}, dt::f32, tag::x);
        p->bwd.execute(strm(), {{DNNL_ARG_SRC, mem(pd.src_desc(), x)},
                                {DNNL_ARG_DIFF_DST, mem(pd.diff_dst_desc(), dy)},
                                {DNNL_ARG_SCALE, mem(cd, scale)},
                                {DNNL_ARG_MEAN, mem(pd.mean_desc(), mean)},
                                {DNNL_ARG_VARIANCE, mem(pd.variance_desc(), var)},
                                {DNNL_ARG_DIFF_SRC, mem(pd.diff_src_desc(), dx)},
                                {DNNL_ARG_DIFF_SCALE, mem(cd, dscale)},
                                {DNNL_ARG_DIFF_SHIFT, mem(cd, dshift)}});
        strm().wait();
    } catch (const error& e) { fail("batch normalization backward", e); }
}
