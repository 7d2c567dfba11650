// tinybvh (the single header tiny_bvh.h, 1.6.8 as shipped inside the
// tinybvh-rs 0.1.0-beta.3 crate) as a program of its own for sylcol-bench's
// `tinybvh` module, which runs it on files instead of linking it (no
// `unsafe` outside sylcol-query). Built by the bench's build.rs only with
// the `tinybvh` feature, with -O3 -march=native -std=c++20 (BVH8_CPU needs
// AVX2 and FMA, as tinybvh-rs builds it).
//
//   sylcol_tinybvh IN OUT CHUNK ANSWERS
//
// IN (little-endian, written by the harness once a scene):
//   "SYTBIN01", u32 triangles, u32 rays, triangles x 9 f32 (three
//   corners), rays x 6 f32 (origin, direction).
// The program builds every layout (untimed), then times one round of the
// rays through each, with the harness's protocol (src/timing.rs): the rays
// cut into chunks of CHUNK; at step s layout m runs chunk
// (s + m * apart) % chunks, apart = max(chunks / layouts, 1); each chunk's
// time read around its loop of `Intersect` calls. The harness runs the
// program once a round, between its own rounds, and keeps each chunk's
// fastest time over the rounds.
// OUT (written to OUT.part, then renamed):
//   "SYTBOUT1", u32 layouts, u32 chunks, u32 rays, u32 answers,
//   layouts x chunks f64 (ns of each chunk, layout by layout),
//   and when ANSWERS is 1, layouts x rays x (f32 t, u32 triangle) with
//   (+inf, 0xFFFFFFFF) for a miss.
// Exit status: 0 done; 1 the mesh is refused (fewer than two triangles);
// 2 usage or unreadable input; 3 the output could not be written. The
// reason is on stderr, naming the file (and the byte offset for input).

#define TINYBVH_IMPLEMENTATION
#include "tiny_bvh.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace tinybvh;

namespace {

// The layouts, in the order of `Layout::ALL` in src/tinybvh.rs.
enum Layout : uint32_t { L_BVH, L_BVH_HQ, L_SOA, L_BVH4, L_BVH8, L_BVH8_HQ, L_COUNT };

[[noreturn]] void fail(int code, const std::string& why) {
    std::fprintf(stderr, "sylcol_tinybvh: %s\n", why.c_str());
    std::exit(code);
}

struct Input {
    std::vector<bvhvec4> verts;  // three a triangle, w unused
    std::vector<float> rays;     // six a ray
    uint32_t triangles = 0, count = 0;
};

// Reads and checks IN: its length must be what its counts say.
Input read_input(const char* path) {
    FILE* f = std::fopen(path, "rb");
    if (!f) fail(2, std::string(path) + ": cannot be opened");
    std::vector<unsigned char> bytes;
    unsigned char buf[1 << 16];
    for (size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) bytes.insert(bytes.end(), buf, buf + got);
    bool err = std::ferror(f);
    std::fclose(f);
    if (err) fail(2, std::string(path) + ": read error");
    const std::string at = std::string(path) + ": ";
    if (bytes.size() < 16) fail(2, at + "byte 0: shorter than the 16-byte header (" + std::to_string(bytes.size()) + " bytes)");
    if (std::memcmp(bytes.data(), "SYTBIN01", 8) != 0) fail(2, at + "byte 0: not \"SYTBIN01\"");
    Input in;
    std::memcpy(&in.triangles, bytes.data() + 8, 4);
    std::memcpy(&in.count, bytes.data() + 12, 4);
    const uint64_t want = 16 + uint64_t(in.triangles) * 36 + uint64_t(in.count) * 24;
    if (bytes.size() != want)
        fail(2, at + "byte 8: " + std::to_string(in.triangles) + " triangles and " + std::to_string(in.count) +
                    " rays need " + std::to_string(want) + " bytes, the file has " + std::to_string(bytes.size()));
    const unsigned char* p = bytes.data() + 16;
    in.verts.reserve(size_t(in.triangles) * 3);
    for (uint64_t k = 0; k < uint64_t(in.triangles) * 3; k++, p += 12) {
        float c[3];
        std::memcpy(c, p, 12);
        in.verts.emplace_back(c[0], c[1], c[2], 0.0f);
    }
    in.rays.resize(size_t(in.count) * 6);
    std::memcpy(in.rays.data(), p, in.rays.size() * 4);
    return in;
}

struct Trees {
    BVH bvh, bvh_hq;
    BVH_SoA soa;
    BVH4_CPU bvh4;
    BVH8_CPU bvh8, bvh8_hq;
};

// One chunk of rays through one tree: t and triangle of each nearest hit
// (tinybvh's 1e30 for a miss, fixed after the timing).
template <class Tree>
void trace(Tree& tree, const float* rays, size_t lo, size_t hi, float* t, uint32_t* prim) {
    for (size_t i = lo; i < hi; i++) {
        const float* r = rays + 6 * i;
        Ray ray(bvhvec3(r[0], r[1], r[2]), bvhvec3(r[3], r[4], r[5]));
        tree.Intersect(ray);
        t[i] = ray.hit.t;
        prim[i] = ray.hit.prim;
    }
}

void trace_layout(Trees& trees, uint32_t layout, const float* rays, size_t lo, size_t hi, float* t, uint32_t* prim) {
    switch (layout) {
        case L_BVH: trace(trees.bvh, rays, lo, hi, t, prim); break;
        case L_BVH_HQ: trace(trees.bvh_hq, rays, lo, hi, t, prim); break;
        case L_SOA: trace(trees.soa, rays, lo, hi, t, prim); break;
        case L_BVH4: trace(trees.bvh4, rays, lo, hi, t, prim); break;
        case L_BVH8: trace(trees.bvh8, rays, lo, hi, t, prim); break;
        case L_BVH8_HQ: trace(trees.bvh8_hq, rays, lo, hi, t, prim); break;
    }
}

void put(FILE* f, const void* p, size_t n, bool& ok) { ok = ok && std::fwrite(p, 1, n, f) == n; }

}  // namespace

int main(int argc, char** argv) {
    if (argc != 5) fail(2, "usage: sylcol_tinybvh IN OUT CHUNK ANSWERS (0 or 1)");
    char* end = nullptr;
    const unsigned long long chunk_arg = std::strtoull(argv[3], &end, 10);
    if (*end != '\0' || chunk_arg == 0 || chunk_arg > (1u << 30)) fail(2, std::string("CHUNK ") + argv[3] + " is not a count of 1 to 2^30");
    const std::string answers_arg = argv[4];
    if (answers_arg != "0" && answers_arg != "1") fail(2, "ANSWERS " + answers_arg + " is not 0 or 1");
    const bool answers = answers_arg == "1";
    const size_t chunk = size_t(chunk_arg);

    Input in = read_input(argv[1]);
    if (in.triangles < 2)
        fail(1, std::string(argv[1]) + ": fewer than two triangles (" + std::to_string(in.triangles) +
                    "): not a case the benchmark times");
    const bvhvec4* v = in.verts.data();
    const uint32_t n = in.triangles;
    Trees trees;
    trees.bvh.Build(v, n);
    trees.bvh_hq.BuildHQ(v, n);
    trees.soa.Build(v, n);
    trees.bvh4.Build(v, n);
    trees.bvh8.Build(v, n);
    trees.bvh8_hq.BuildHQ(v, n);

    const size_t rays = in.count;
    const size_t chunks = (rays + chunk - 1) / chunk;
    const size_t apart = std::max<size_t>(chunks / L_COUNT, 1);
    std::vector<double> ns(size_t(L_COUNT) * chunks, 0.0);
    std::vector<std::vector<float>> t(L_COUNT, std::vector<float>(rays));
    std::vector<std::vector<uint32_t>> prim(L_COUNT, std::vector<uint32_t>(rays));
    for (size_t step = 0; step < chunks; step++) {
        for (uint32_t m = 0; m < L_COUNT; m++) {
            const size_t c = (step + m * apart) % chunks;
            const size_t lo = c * chunk, hi = std::min(lo + chunk, rays);
            const auto start = std::chrono::steady_clock::now();
            trace_layout(trees, m, in.rays.data(), lo, hi, t[m].data(), prim[m].data());
            const auto took = std::chrono::steady_clock::now() - start;
            ns[size_t(m) * chunks + c] = double(std::chrono::duration_cast<std::chrono::nanoseconds>(took).count());
        }
    }

    const std::string out = argv[2], part = out + ".part";
    FILE* f = std::fopen(part.c_str(), "wb");
    if (!f) fail(3, part + ": cannot be created");
    bool ok = true;
    const uint32_t head[4] = {L_COUNT, uint32_t(chunks), uint32_t(rays), answers ? 1u : 0u};
    put(f, "SYTBOUT1", 8, ok);
    put(f, head, sizeof head, ok);
    put(f, ns.data(), ns.size() * sizeof(double), ok);
    if (answers) {
        std::vector<uint32_t> row(2 * rays);
        for (uint32_t m = 0; m < L_COUNT; m++) {
            for (size_t i = 0; i < rays; i++) {
                const bool hit = t[m][i] < BVH_FAR;
                const float ti = hit ? t[m][i] : INFINITY;
                std::memcpy(&row[2 * i], &ti, 4);
                row[2 * i + 1] = hit ? prim[m][i] : UINT32_MAX;
            }
            put(f, row.data(), row.size() * 4, ok);
        }
    }
    ok = std::fclose(f) == 0 && ok;
    if (!ok || std::rename(part.c_str(), out.c_str()) != 0) {
        std::remove(part.c_str());
        fail(3, out + ": could not be written");
    }
    return 0;
}
