// Image ops on tensors kept in oneDNN's nChw8c / nChw16c layouts (frost_layout.h): batch norm
// with its fused ReLU, and the element-wise add / ReLU of a residual block, which are
// layout-agnostic when every operand shares the layout. Element (i, j, q) of an (N, C, plane)
// tensor with channel block B lies at ((i * C/B + j/B) * plane + q) * B + j % B.
#include <algorithm>
#include <cmath>
#include "dnnl_common.h"
#include "frost_layout.h"
#include "profile.h"

namespace {

constexpr int64_t kRun = 1024;   // spatial positions per float partial sum, as the plain kernels

// Per lane l < B of channel block cb: s[l] = sum of f(x, l) over every image and position, in
// float runs of kRun positions added in double (the plain kernels' order).
template <int B, class F>
void lane_reduce(const float* x, int64_t n, int64_t cb, int64_t nb, int64_t plane, double* s, F f) {
    for (int l = 0; l < B; l++) s[l] = 0;
    for (int64_t i = 0; i < n; i++) {
        const float* p = x + (i * nb + cb) * plane * B;
        for (int64_t q0 = 0; q0 < plane; q0 += kRun) {
            int64_t q1 = std::min(q0 + kRun, plane);
            float part[B] = {};
            for (int64_t q = q0; q < q1; q++) {
                #pragma omp simd
                for (int l = 0; l < B; l++) part[l] += f(p[q * B + l], l);
            }
            for (int l = 0; l < B; l++) s[l] += part[l];
        }
    }
}

template <int B>
void lane_sums(const float* x, int64_t n, int64_t cb, int64_t nb, int64_t plane, double* s) {
    lane_reduce<B>(x, n, cb, nb, plane, s, [](float v, int) { return v; });
}

// s[l] = sum of (x - mu[l])^2
template <int B>
void lane_sq_devs(const float* x, int64_t n, int64_t cb, int64_t nb, int64_t plane,
                  const float* mu, double* s) {
    lane_reduce<B>(x, n, cb, nb, plane, s, [mu](float v, int l) { float d = v - mu[l]; return d * d; });
}

template <int B>
void bn_fwd(int32_t training, const float* x, float* y, const float* scale, const float* shift,
            float* mean, float* var, int64_t n, int64_t c, int64_t plane, float eps,
            int32_t relu) {
    const int64_t nb = c / B, m = n * plane;
    #pragma omp parallel for schedule(static) if (m * c > 16384)
    for (int64_t cb = 0; cb < nb; cb++) {
        float mu[B], vr[B], a[B], b[B];
        if (training) {
            double s[B];
            lane_sums<B>(x, n, cb, nb, plane, s);
            for (int l = 0; l < B; l++) mu[l] = m ? (float)(s[l] / (double)m) : 0.0f;
            lane_sq_devs<B>(x, n, cb, nb, plane, mu, s);
            for (int l = 0; l < B; l++) {
                vr[l] = m ? (float)(s[l] / (double)m) : 0.0f;
                mean[cb * B + l] = mu[l];
                var[cb * B + l] = vr[l];
            }
        } else {
            for (int l = 0; l < B; l++) { mu[l] = mean[cb * B + l]; vr[l] = var[cb * B + l]; }
        }
        for (int l = 0; l < B; l++) {
            a[l] = scale[cb * B + l] / std::sqrt(vr[l] + eps);
            b[l] = shift[cb * B + l] - mu[l] * a[l];
        }
        for (int64_t i = 0; i < n; i++) {
            const float* xp = x + (i * nb + cb) * plane * B;
            float* yp = y + (i * nb + cb) * plane * B;
            for (int64_t q = 0; q < plane; q++) {
                if (relu) {
                    #pragma omp simd
                    for (int l = 0; l < B; l++) yp[q * B + l] = std::max(xp[q * B + l] * a[l] + b[l], 0.0f);
                } else {
                    #pragma omp simd
                    for (int l = 0; l < B; l++) yp[q * B + l] = xp[q * B + l] * a[l] + b[l];
                }
            }
        }
    }
}

template <int B>
void bn_bwd(const float* x, const float* dy, const float* scale, const float* mean,
            const float* var, float* dx, float* dscale, float* dshift, int64_t n, int64_t c,
            int64_t plane, float eps, const float* y) {
    const int64_t nb = c / B, m = n * plane;
    #pragma omp parallel for schedule(static) if (m * c > 16384)
    for (int64_t cb = 0; cb < nb; cb++) {
        float mu[B], invstd[B], a[B], gmean[B], k[B];
        double sdy[B] = {}, sdyx[B] = {};
        for (int l = 0; l < B; l++) {
            mu[l] = mean[cb * B + l];
            invstd[l] = 1.0f / std::sqrt(var[cb * B + l] + eps);
        }
        for (int64_t i = 0; i < n; i++) {
            const int64_t o = (i * nb + cb) * plane * B;
            for (int64_t q0 = 0; q0 < plane; q0 += kRun) {
                int64_t q1 = std::min(q0 + kRun, plane);
                float p1[B] = {}, p2[B] = {};
                for (int64_t q = q0; q < q1; q++) {
                    const int64_t e = o + q * B;
                    if (y) {
                        #pragma omp simd
                        for (int l = 0; l < B; l++) {
                            // dy read unconditionally: a select, not a branch, so the lanes vectorise
                            float gv = dy[e + l];
                            float gq = y[e + l] > 0.0f ? gv : 0.0f;
                            p1[l] += gq;
                            p2[l] += gq * (x[e + l] - mu[l]);
                        }
                    } else {
                        #pragma omp simd
                        for (int l = 0; l < B; l++) {
                            p1[l] += dy[e + l];
                            p2[l] += dy[e + l] * (x[e + l] - mu[l]);
                        }
                    }
                }
                for (int l = 0; l < B; l++) { sdy[l] += p1[l]; sdyx[l] += p2[l]; }
            }
        }
        // dx = w invstd (dy - mean(dy) - (x - mu) invstd^2 mean(dy (x - mu)))
        for (int l = 0; l < B; l++) {
            dscale[cb * B + l] = (float)(sdyx[l] * invstd[l]);
            dshift[cb * B + l] = (float)sdy[l];
            a[l] = scale[cb * B + l] * invstd[l];
            gmean[l] = m ? (float)(sdy[l] / (double)m) : 0.0f;
            k[l] = m ? (float)(sdyx[l] / (double)m) * invstd[l] * invstd[l] : 0.0f;
        }
        for (int64_t i = 0; i < n; i++) {
            const int64_t o = (i * nb + cb) * plane * B;
            for (int64_t q = 0; q < plane; q++) {
                const int64_t e = o + q * B;
                if (y) {
                    #pragma omp simd
                    for (int l = 0; l < B; l++) {
                        float gv = dy[e + l];
                        float gq = y[e + l] > 0.0f ? gv : 0.0f;
                        dx[e + l] = (gq - gmean[l] - (x[e + l] - mu[l]) * k[l]) * a[l];
                    }
                } else {
                    #pragma omp simd
                    for (int l = 0; l < B; l++)
                        dx[e + l] = (dy[e + l] - gmean[l] - (x[e + l] - mu[l]) * k[l]) * a[l];
                }
            }
        }
    }
}

}  // namespace

namespace frost_blocked {

void bn_forward(int block, int32_t training, const float* x, float* y, const float* scale,
                const float* shift, float* mean, float* var, int64_t n, int64_t c, int64_t h,
                int64_t wd, float eps, int32_t relu) {
    if (block == 16) bn_fwd<16>(training, x, y, scale, shift, mean, var, n, c, h * wd, eps, relu);
    else bn_fwd<8>(training, x, y, scale, shift, mean, var, n, c, h * wd, eps, relu);
}

void bn_backward(int block, const float* x, const float* dy, const float* scale,
                 const float* mean, const float* var, float* dx, float* dscale, float* dshift,
                 int64_t n, int64_t c, int64_t h, int64_t wd, float eps, const float* y) {
    if (block == 16) bn_bwd<16>(x, dy, scale, mean, var, dx, dscale, dshift, n, c, h * wd, eps, y);
    else bn_bwd<8>(x, dy, scale, mean, var, dx, dscale, dshift, n, c, h * wd, eps, y);
}

}  // namespace frost_blocked

void frost__c_add_relu(const float* a, const float* b, float* y, int64_t n) {
    #pragma omp parallel for simd schedule(static) if (n > 65536)
    for (int64_t i = 0; i < n; i++) {
        float v = a[i] + b[i];
        y[i] = v > 0.0f ? v : 0.0f;   // as elementwise.relu: NaN and -0.0 give 0
    }
}

void frost__c_relu_mask(const float* g, const float* y, float* gx, int64_t n) {
    frost_prof::Scope prof("add_relu_bwd", 0);
    #pragma omp parallel for simd schedule(static) if (n > 65536)
    for (int64_t i = 0; i < n; i++) {
        float gv = g[i];   // read unconditionally: a select, so the loop vectorises
        gx[i] = y[i] > 0.0f ? gv : 0.0f;
    }
}

void frost__c_add_n(const float* a, const float* b, float* y, int64_t n) {
    frost_prof::Scope prof("add_grads", 0);
    #pragma omp parallel for simd schedule(static) if (n > 65536)
    for (int64_t i = 0; i < n; i++) y[i] = a[i] + b[i];
}
