// tinybvh (the single header tiny_bvh.h, 1.6.8 as shipped inside the
// tinybvh-rs 0.1.0-beta.3 crate) behind a handle-based C interface for
// sylcol-bench's `tinybvh` module. Built by build.rs only with the
// `tinybvh` feature, with -O3 -march=native (BVH8_CPU needs AVX2 and FMA,
// as tinybvh-rs builds it).
//
// A scene lives in a slot of a fixed table; the Rust side holds its slot
// number. Every entry point checks the slot and the layout and answers
// (a miss, an error code) instead of reading outside the table, so the
// Rust declarations of all but sylcol_tb_free can be `safe fn`: none takes
// a pointer the callee could follow past what its Rust type promises (one
// triangle of nine f32, one ray of six f32); pushes and builds hold the
// scene's lock, pushes end with the first build, a layout is built once
// and traced only after its build has ended. Freeing a slot while a trace
// runs on it would not be safe: the Rust side frees only from the owner's
// Drop.

#define TINYBVH_IMPLEMENTATION
#include "tiny_bvh.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

using namespace tinybvh;

namespace {

// The layouts, in the order of `Layout` in src/tinybvh.rs.
enum Layout : uint32_t { L_BVH, L_BVH_HQ, L_SOA, L_BVH4, L_BVH8, L_BVH8_HQ, L_COUNT };

struct Scene {
    std::vector<bvhvec4> verts;  // three a triangle, w unused
    std::mutex lock;                // held by pushes and builds
    std::atomic<uint32_t> built{0};  // bit k: layout k is built (set once its build ends)
    bool building = false;           // a build has started: no more pushes
    uint32_t started = 0;            // bit k: layout k's build has started
    BVH bvh, bvh_hq;
    BVH_SoA soa;
    BVH4_CPU bvh4;
    BVH8_CPU bvh8, bvh8_hq;
};

constexpr uint32_t SLOTS = 64;
std::atomic<Scene*> slots[SLOTS];
std::mutex slots_lock;

Scene* get(uint32_t h) {
    return h < SLOTS ? slots[h].load(std::memory_order_acquire) : nullptr;
}

}  // namespace

struct SylcolTbHit {
    float t;
    uint32_t prim;
};

extern "C" {

// A new empty scene: its slot, or UINT32_MAX when every slot is taken.
uint32_t sylcol_tb_new() {
    std::lock_guard<std::mutex> g(slots_lock);
    for (uint32_t h = 0; h < SLOTS; h++) {
        if (slots[h].load() == nullptr) {
            slots[h].store(new Scene(), std::memory_order_release);
            return h;
        }
    }
    return UINT32_MAX;
}

// Appends one triangle (three corners of three f32) before the build.
void sylcol_tb_push(uint32_t h, const float* tri9) {
    Scene* s = get(h);
    if (s == nullptr) return;
    std::lock_guard<std::mutex> g(s->lock);
    if (s->building) return;
    for (int k = 0; k < 3; k++) {
        s->verts.push_back(bvhvec4(tri9[3 * k], tri9[3 * k + 1], tri9[3 * k + 2], 0));
    }
}

// Builds `layout` over the pushed triangles (pushes end with the first
// build): 0 done; 1 no such scene or layout; 2 fewer than two triangles
// (kept out: not a case the benchmark times); 3 built before.
uint32_t sylcol_tb_build(uint32_t h, uint32_t layout) {
    Scene* s = get(h);
    if (s == nullptr || layout >= L_COUNT) return 1;
    std::lock_guard<std::mutex> g(s->lock);
    uint32_t n = (uint32_t)(s->verts.size() / 3);
    if (n < 2) return 2;
    if (s->started & (1u << layout)) return 3;
    s->building = true;
    s->started |= 1u << layout;
    const bvhvec4* v = s->verts.data();
    switch (layout) {
        case L_BVH: s->bvh.Build(v, n); break;
        case L_BVH_HQ: s->bvh_hq.BuildHQ(v, n); break;
        case L_SOA: s->soa.Build(v, n); break;
        case L_BVH4: s->bvh4.Build(v, n); break;
        case L_BVH8: s->bvh8.Build(v, n); break;
        case L_BVH8_HQ: s->bvh8_hq.BuildHQ(v, n); break;
    }
    s->built.fetch_or(1u << layout, std::memory_order_release);
    return 0;
}

// The nearest hit of one ray (origin, direction) through `layout`:
// t = 1e30 and prim = UINT32_MAX for a miss (or an unbuilt layout).
SylcolTbHit sylcol_tb_intersect(uint32_t h, uint32_t layout, const float* ray6) {
    SylcolTbHit out = {BVH_FAR, UINT32_MAX};
    Scene* s = get(h);
    if (s == nullptr || layout >= L_COUNT || (s->built.load(std::memory_order_acquire) & (1u << layout)) == 0) return out;
    Ray r(bvhvec3(ray6[0], ray6[1], ray6[2]), bvhvec3(ray6[3], ray6[4], ray6[5]));
    switch (layout) {
        case L_BVH: s->bvh.Intersect(r); break;
        case L_BVH_HQ: s->bvh_hq.Intersect(r); break;
        case L_SOA: s->soa.Intersect(r); break;
        case L_BVH4: s->bvh4.Intersect(r); break;
        case L_BVH8: s->bvh8.Intersect(r); break;
        case L_BVH8_HQ: s->bvh8_hq.Intersect(r); break;
    }
    if (r.hit.t < BVH_FAR) out = {r.hit.t, r.hit.prim};
    return out;
}

// Frees the scene in slot `h` (nothing if the slot is empty).
void sylcol_tb_free(uint32_t h) {
    if (h >= SLOTS) return;
    std::lock_guard<std::mutex> g(slots_lock);
    delete slots[h].exchange(nullptr);
}

}  // extern "C"
