/*
 * A small C shim over Embree 3 for sylcol's benchmark harness
 * (crates/sylcol-bench, feature `embree`).
 *
 * Rust calls a handful of plain functions; the shim owns the device and
 * the scene, and runs whole runs of rays in C so that no FFI call sits in
 * the timed loop per ray. `rtcInitIntersectContext` is an inline header
 * function, which is why this is C and not bare `extern` declarations.
 *
 * Rays are passed as 6 floats each (origin xyz, direction xyz); answers as
 * the hit distance (+inf for a miss) and the primitive id (~0 for a miss).
 */
#include <embree3/rtcore.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <immintrin.h>

typedef struct {
  RTCDevice device;
  RTCScene scene;
} ShimScene;


/* A scene over `nt` triangles (`tris`, 3 u32 each) of `nv` vertices
 * (`verts`, 3 f32 each), built with RTC_BUILD_QUALITY_HIGH on a device of
 * one build thread; `robust` sets RTC_SCENE_FLAG_ROBUST; `config` (may be
 * empty) is appended to the device's configuration string (Embree's
 * `max_isa=avx2`, `verbose=2`, ...). NULL on failure. */
void *sylcol_embree_new(const float *verts, size_t nv, const uint32_t *tris,
                        size_t nt, int robust, const char *config) {
  char settings[512];
  snprintf(settings, sizeof settings, "threads=1,set_affinity=0%s%s",
           config[0] ? "," : "", config);
  RTCDevice device = rtcNewDevice(settings);
  if (!device) return NULL;
  RTCScene scene = rtcNewScene(device);
  rtcSetSceneBuildQuality(scene, RTC_BUILD_QUALITY_HIGH);
  rtcSetSceneFlags(scene, robust ? RTC_SCENE_FLAG_ROBUST : RTC_SCENE_FLAG_NONE);
  RTCGeometry g = rtcNewGeometry(device, RTC_GEOMETRY_TYPE_TRIANGLE);
  rtcSetGeometryBuildQuality(g, RTC_BUILD_QUALITY_HIGH);
  float *v = (float *)rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0,
                                              RTC_FORMAT_FLOAT3,
                                              3 * sizeof(float), nv);
  uint32_t *t = (uint32_t *)rtcSetNewGeometryBuffer(
      g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(uint32_t), nt);
  if (!v || !t) {
    rtcReleaseGeometry(g);
    rtcReleaseScene(scene);
    rtcReleaseDevice(device);
    return NULL;
  }
  memcpy(v, verts, nv * 3 * sizeof(float));
  memcpy(t, tris, nt * 3 * sizeof(uint32_t));
  rtcCommitGeometry(g);
  rtcAttachGeometry(scene, g);
  rtcReleaseGeometry(g);
  rtcCommitScene(scene);
  if (rtcGetDeviceError(device) != RTC_ERROR_NONE) {
    rtcReleaseScene(scene);
    rtcReleaseDevice(device);
    return NULL;
  }
  ShimScene *s = (ShimScene *)malloc(sizeof(ShimScene));
  s->device = device;
  s->scene = scene;
  return s;
}

void sylcol_embree_free(void *p) {
  ShimScene *s = (ShimScene *)p;
  if (!s) return;
  rtcReleaseScene(s->scene);
  rtcReleaseDevice(s->device);
  free(s);
}

/* `n` rays with rtcIntersect1, t in [0, inf). */
void sylcol_embree_intersect1(void *p, const float *rays, size_t n,
                              float *t_out, uint32_t *id_out) {
  ShimScene *s = (ShimScene *)p;
  struct RTCIntersectContext ctx;
  rtcInitIntersectContext(&ctx);
  for (size_t i = 0; i < n; i++) {
    const float *r = rays + 6 * i;
    struct RTCRayHit rh __attribute__((aligned(16)));
    /* Origin and tnear, direction and time, each as one 16-byte store:
     * Embree reads each as one 16-byte load, and a load that spans
     * several stores still on their way to the cache waits for them all
     * (field by field, gcc stored them as 8 + 4 + 4 and 4 x 4 bytes). */
    _mm_store_ps(&rh.ray.org_x, _mm_setr_ps(r[0], r[1], r[2], 0.0f));
    _mm_store_ps(&rh.ray.dir_x, _mm_setr_ps(r[3], r[4], r[5], 0.0f));
    rh.ray.tfar = INFINITY;
    rh.ray.mask = 0xFFFFFFFFu;
    rh.ray.id = 0;
    rh.ray.flags = 0;
    rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rh.hit.primID = RTC_INVALID_GEOMETRY_ID;
    rtcIntersect1(s->scene, &ctx, &rh);
    int hit = rh.hit.geomID != RTC_INVALID_GEOMETRY_ID;
    t_out[i] = hit ? rh.ray.tfar : INFINITY;
    id_out[i] = hit ? rh.hit.primID : 0xFFFFFFFFu;
  }
}

/* One row of a packet of eight rays, as one 32-byte store: field `f` of
 * rows `r[0..8]`. Embree reads each row as one 32-byte load, and a load
 * that spans eight 4-byte stores still on their way to the cache waits
 * for them all. */
#define ROW8(f) \
  _mm256_setr_ps(r[0][f], r[1][f], r[2][f], r[3][f], r[4][f], r[5][f], r[6][f], r[7][f])

/* `n` rays as packets of eight with rtcIntersect8 (the last packet masked,
 * its idle lanes copies of its first ray). Compiled for AVX2: the harness
 * runs where Embree's AVX2 kernels do. */
__attribute__((target("avx2"))) void sylcol_embree_intersect8(
    void *p, const float *rays, size_t n, float *t_out, uint32_t *id_out) {
  ShimScene *s = (ShimScene *)p;
  struct RTCIntersectContext ctx;
  rtcInitIntersectContext(&ctx);
  ctx.flags = RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT;
  struct RTCRayHit8 rh __attribute__((aligned(32)));
  int valid[8] __attribute__((aligned(32)));
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (size_t base = 0; base < n; base += 8) {
    const float *r[8];
    size_t left = n - base;
    for (size_t k = 0; k < 8; k++) r[k] = rays + 6 * (base + (k < left ? k : 0));
    _mm256_store_si256((__m256i *)valid,
                       _mm256_cmpgt_epi32(_mm256_set1_epi32(left < 8 ? (int)left : 8), lane));
    _mm256_store_ps(rh.ray.org_x, ROW8(0));
    _mm256_store_ps(rh.ray.org_y, ROW8(1));
    _mm256_store_ps(rh.ray.org_z, ROW8(2));
    _mm256_store_ps(rh.ray.dir_x, ROW8(3));
    _mm256_store_ps(rh.ray.dir_y, ROW8(4));
    _mm256_store_ps(rh.ray.dir_z, ROW8(5));
    _mm256_store_ps(rh.ray.tnear, _mm256_setzero_ps());
    _mm256_store_ps(rh.ray.time, _mm256_setzero_ps());
    _mm256_store_ps(rh.ray.tfar, _mm256_set1_ps(INFINITY));
    _mm256_store_si256((__m256i *)rh.ray.mask, _mm256_set1_epi32(-1));
    _mm256_store_si256((__m256i *)rh.ray.id, lane);
    _mm256_store_si256((__m256i *)rh.ray.flags, _mm256_setzero_si256());
    _mm256_store_si256((__m256i *)rh.hit.geomID, _mm256_set1_epi32(-1));
    _mm256_store_si256((__m256i *)rh.hit.primID, _mm256_set1_epi32(-1));
    rtcIntersect8(valid, s->scene, &ctx, &rh);
    for (int k = 0; k < 8 && base + (size_t)k < n; k++) {
      int hit = rh.hit.geomID[k] != RTC_INVALID_GEOMETRY_ID;
      t_out[base + k] = hit ? rh.ray.tfar[k] : INFINITY;
      id_out[base + k] = hit ? rh.hit.primID[k] : 0xFFFFFFFFu;
    }
  }
}
