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
#include <stdlib.h>
#include <string.h>

typedef struct {
  RTCDevice device;
  RTCScene scene;
} ShimScene;


/* A scene over `nt` triangles (`tris`, 3 u32 each) of `nv` vertices
 * (`verts`, 3 f32 each), built with RTC_BUILD_QUALITY_HIGH on a device of
 * one build thread; `robust` sets RTC_SCENE_FLAG_ROBUST. NULL on failure. */
void *sylcol_embree_new(const float *verts, size_t nv, const uint32_t *tris,
                        size_t nt, int robust) {
  RTCDevice device = rtcNewDevice("threads=1,set_affinity=0");
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
    struct RTCRayHit rh;
    rh.ray.org_x = r[0];
    rh.ray.org_y = r[1];
    rh.ray.org_z = r[2];
    rh.ray.tnear = 0.0f;
    rh.ray.dir_x = r[3];
    rh.ray.dir_y = r[4];
    rh.ray.dir_z = r[5];
    rh.ray.time = 0.0f;
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

/* `n` rays as packets of eight with rtcIntersect8 (the last packet masked). */
void sylcol_embree_intersect8(void *p, const float *rays, size_t n,
                              float *t_out, uint32_t *id_out) {
  ShimScene *s = (ShimScene *)p;
  struct RTCIntersectContext ctx;
  rtcInitIntersectContext(&ctx);
  ctx.flags = RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT;
  struct RTCRayHit8 rh __attribute__((aligned(32)));
  int valid[8] __attribute__((aligned(32)));
  for (size_t base = 0; base < n; base += 8) {
    for (int k = 0; k < 8; k++) {
      size_t i = base + (size_t)k;
      const float *r = rays + 6 * (i < n ? i : base);
      valid[k] = i < n ? -1 : 0;
      rh.ray.org_x[k] = r[0];
      rh.ray.org_y[k] = r[1];
      rh.ray.org_z[k] = r[2];
      rh.ray.tnear[k] = 0.0f;
      rh.ray.dir_x[k] = r[3];
      rh.ray.dir_y[k] = r[4];
      rh.ray.dir_z[k] = r[5];
      rh.ray.time[k] = 0.0f;
      rh.ray.tfar[k] = INFINITY;
      rh.ray.mask[k] = 0xFFFFFFFFu;
      rh.ray.id[k] = (unsigned)k;
      rh.ray.flags[k] = 0;
      rh.hit.geomID[k] = RTC_INVALID_GEOMETRY_ID;
      rh.hit.primID[k] = RTC_INVALID_GEOMETRY_ID;
    }
    rtcIntersect8(valid, s->scene, &ctx, &rh);
    for (int k = 0; k < 8 && base + (size_t)k < n; k++) {
      int hit = rh.hit.geomID[k] != RTC_INVALID_GEOMETRY_ID;
      t_out[base + k] = hit ? rh.ray.tfar[k] : INFINITY;
      id_out[base + k] = hit ? rh.hit.primID[k] : 0xFFFFFFFFu;
    }
  }
}
