// The C++ reference of frost/mcts (packages/frost/mcts.nv), the same algorithm line for line:
// UCT with random playouts, N std::threads over one tree in arrays, virtual loss, atomic visit
// and win counts, children created once by the thread that claims the node (an atomic add) and
// published by an atomic store.
//   mcts WxHxK[g] PLAYOUTS THREADS POSITIONS   (prints "best value" per line, then playouts/s)
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

struct Game {
    int w, h, k;
    bool gravity;
    int actions() const { return gravity ? w : w * h; }
    int cell(int64_t occ, int m) const {
        if (!gravity) return (occ >> m) & 1 ? -1 : m;
        for (int r = 0; r < h; r++) {
            int i = r * w + m;
            if (!((occ >> i) & 1)) return i;
        }
        return -1;
    }
    bool wins(int64_t s, int i) const {
        static const int D[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
        int r = i / w, c = i % w;
        for (auto& d : D) {
            int n = 1;
            for (int sg = 1; sg >= -1; sg -= 2) {
                int rr = r + sg * d[0], cc = c + sg * d[1];
                while (rr >= 0 && rr < h && cc >= 0 && cc < w && ((s >> (rr * w + cc)) & 1)) {
                    n++;
                    rr += sg * d[0];
                    cc += sg * d[1];
                }
            }
            if (n >= k) return true;
        }
        return false;
    }
    bool full(int64_t occ) const { return occ == (int64_t(1) << (w * h)) - 1; }
};

struct Rng {
    uint64_t x;
    int64_t next() {
        x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
        return int64_t((x * 2685821657736338717ULL) >> 33) & 2147483647;
    }
};

int playout(const Game& g, int64_t mine, int64_t theirs, Rng& rng) {
    int sign = 1, free_[64];
    for (;;) {
        int64_t occ = mine | theirs;
        if (g.full(occ)) return 1;
        int n = 0;
        for (int m = 0; m < g.actions(); m++) {
            int i = g.cell(occ, m);
            if (i >= 0) free_[n++] = i;
        }
        int i = free_[rng.next() % n];
        int64_t s = mine | (int64_t(1) << i);
        if (g.wins(s, i)) return sign == 1 ? 2 : 0;
        mine = theirs;
        theirs = s;
        sign = -sign;
    }
}

struct Tree {
    Game g;
    int cap;
    std::vector<std::atomic<int64_t>> first, visits, wins, claimed;
    std::vector<int64_t> count, parent, cell, mine, theirs;
    std::atomic<int64_t> used{1};
    double c = 1.4;
    int vl = 1, expand_after = 1;

    Tree(Game g_, int64_t m0, int64_t t0, int cap_)
        : g(g_), cap(cap_), first(cap_), visits(cap_), wins(cap_), claimed(cap_), count(cap_), parent(cap_),
          cell(cap_), mine(cap_), theirs(cap_) {
        first[0] = -1; parent[0] = -1; cell[0] = -1; mine[0] = m0; theirs[0] = t0;
    }
    bool terminal(int n) const { return count[n] == -1 || g.full(mine[n] | theirs[n]); }
    bool expand(int n) {
        if (claimed[n].fetch_add(1) != 0) return first[n].load() >= 0;
        int64_t occ = mine[n] | theirs[n];
        int k = 0;
        for (int m = 0; m < g.actions(); m++) k += g.cell(occ, m) >= 0;
        int64_t start = used.fetch_add(k);
        if (start + k > cap) return false;
        int64_t j = start;
        for (int m = 0; m < g.actions(); m++) {
            int i = g.cell(occ, m);
            if (i < 0) continue;
            int64_t s = mine[n] | (int64_t(1) << i);
            parent[j] = n; cell[j] = i; mine[j] = theirs[n]; theirs[j] = s; first[j] = -1;
            if (g.wins(s, i)) count[j] = -1;
            j++;
        }
        count[n] = k;
        first[n].fetch_add(start + 1);
        return true;
    }
    int select(int n) {
        int best = -1;
        double bs = -1.0, ln = std::log(double(visits[n].load() + 1));
        int64_t f = first[n].load();
        for (int64_t j = f; j < f + count[n]; j++) {
            int64_t v = visits[j].load(std::memory_order_relaxed);
            if (v == 0) return int(j);
            double s = double(wins[j].load(std::memory_order_relaxed)) / double(2 * v) + c * std::sqrt(ln / double(v));
            if (s > bs) { bs = s; best = int(j); }
        }
        return best;
    }
    void iterate(Rng& rng) {
        int n = 0;
        visits[0].fetch_add(vl);
        while (!terminal(n)) {
            if (first[n].load() < 0)
                if (visits[n].load() - vl < expand_after || !expand(n)) break;
            n = select(n);
            visits[n].fetch_add(vl);
        }
        int r = 1;
        if (count[n] == -1) r = 2;
        else if (!g.full(mine[n] | theirs[n])) r = 2 - playout(g, mine[n], theirs[n], rng);
        while (n >= 0) {
            visits[n].fetch_add(1 - vl);
            wins[n].fetch_add(r);
            r = 2 - r;
            n = int(parent[n]);
        }
    }
    std::pair<int, double> best() {
        int64_t f = first[0].load();
        if (f < 0) return {-1, 0.5};
        int64_t b = f;
        for (int64_t j = f; j < f + count[0]; j++) if (visits[j] > visits[b]) b = j;
        int i = int(cell[b]);
        return {g.gravity ? i % g.w : i, double(wins[b]) / double(2 * std::max<int64_t>(visits[b], 1))};
    }
};

int main(int argc, char** argv) {
    if (argc < 5) { std::fprintf(stderr, "usage: mcts WxHxK[g] PLAYOUTS THREADS POSITIONS\n"); return 2; }
    std::string spec = argv[1];
    Game g{0, 0, 0, spec.back() == 'g'};
    if (std::sscanf(spec.c_str(), "%dx%dx%d", &g.w, &g.h, &g.k) != 3) return 2;
    int playouts = std::atoi(argv[2]), threads = std::atoi(argv[3]);
    std::ifstream in(argv[4]);
    std::string line;
    double spent = 0;
    int64_t done = 0;
    while (std::getline(in, line)) {
        int64_t mine = 0, theirs = 0;
        std::istringstream ws(line);
        int mv;
        while (ws >> mv) {
            int i = g.cell(mine | theirs, mv);
            int64_t s = mine | (int64_t(1) << i);
            mine = theirs;
            theirs = s;
        }
        Tree t(g, mine, theirs, 2 * playouts + 64);
        auto t0 = std::chrono::steady_clock::now();
        std::vector<std::thread> ts;
        for (int k = 0; k < threads; k++)
            ts.emplace_back([&, k] {
                Rng rng{uint64_t(((done + 1) * 1000003 + k) * 2654435761LL + 1442695040888963407LL)};
                int n = playouts / threads + (k < playouts % threads);
                for (int it = 0; it < n; it++) t.iterate(rng);
            });
        for (auto& th : ts) th.join();
        spent += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        done += playouts;
        auto b = t.best();
        std::printf("%d %.3f\n", b.first, b.second);
    }
    std::printf("playouts/s %.0f\n", double(done) / spent);
}
