/* A C caller of gt4rs_icon: calculate_nabla4 on a small made-up mesh through the generated
 * header, against the same formula in C, and a refused call's status and message. Prints
 * "c driver: ..." lines; exits 1 when a check fails. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gt4rs_icon.h"

enum { EDGES = 6, VERTICES = 5, LEVELS = 3, NPROMA = 8 };

static void check(int status, const char *what) {
  if (status != GT4RS_OK) {
    fprintf(stderr, "%s failed with status %d: %s\n", what, status, gt4rs_icon_last_error());
    exit(1);
  }
}

int main(void) {
  /* ICON's (nproma, nblks = 1, 4) vertex_idx and vertex_blk, 1-based, column-major. */
  int32_t idx[NPROMA * 4] = {0}, blk[NPROMA * 4] = {0};
  for (int e = 0; e < EDGES; ++e)
    for (int n = 0; n < 4; ++n) {
      idx[e + NPROMA * n] = (e + n) % VERTICES + 1;
      blk[e + NPROMA * n] = 1;
    }
  /* Fields (nproma, nlev), the horizontal index fastest. */
  double u[NPROMA * LEVELS], v[NPROMA * LEVELS], z2[NPROMA * LEVELS], z4[NPROMA * LEVELS];
  double pn_x[NPROMA * 4], pn_y[NPROMA * 4], ivv[NPROMA], ipe[NPROMA];
  for (int i = 0; i < NPROMA * LEVELS; ++i) {
    u[i] = sin(0.7 * i);
    v[i] = cos(1.3 * i);
    z2[i] = 0.01 * i;
    z4[i] = -999.0;
  }
  for (int i = 0; i < NPROMA * 4; ++i) {
    pn_x[i] = 0.1 * i - 1.0;
    pn_y[i] = 1.0 - 0.05 * i;
  }
  for (int e = 0; e < NPROMA; ++e) {
    ivv[e] = 1.0 / (1.0 + e);
    ipe[e] = 2.0 / (3.0 + e);
  }

  gt4rs_icon_options *options = NULL;
  gt4rs_icon_calculate_nabla4 *nabla4 = NULL;
  check(gt4rs_icon_options_new(GT4RS_BACKEND_CPU, &options), "gt4rs_icon_options_new");
  check(gt4rs_icon_connectivity_e2c2v(options, idx, NPROMA, 1, 4, 1, NPROMA, NPROMA, blk, NPROMA,
                                      1, 4, 1, NPROMA, NPROMA, EDGES, VERTICES),
        "gt4rs_icon_connectivity_e2c2v");
  check(gt4rs_icon_calculate_nabla4_compile(options, &nabla4), "calculate_nabla4_compile");
  gt4rs_icon_options_free(&options);

  const int64_t np = NPROMA, nk = LEVELS;
  check(gt4rs_icon_calculate_nabla4_call(nabla4, u, np, nk, 1, np, v, np, nk, 1, np, pn_x, np, 4,
                                         1, np, pn_y, np, 4, 1, np, z2, np, nk, 1, np, ivv, np, 1,
                                         ipe, np, 1, z4, np, nk, 1, np, 0, EDGES, 0, LEVELS),
        "calculate_nabla4");
  int failures = 0;
  for (int k = 0; k < LEVELS; ++k)
    for (int e = 0; e < NPROMA; ++e) {
      double want = -999.0;
      if (e < EDGES) {
        int iv[4];
        for (int n = 0; n < 4; ++n) iv[n] = idx[e + NPROMA * n] - 1;
        double tang = u[iv[0] + NPROMA * k] * pn_x[e] + v[iv[0] + NPROMA * k] * pn_y[e] +
                      u[iv[1] + NPROMA * k] * pn_x[e + NPROMA] +
                      v[iv[1] + NPROMA * k] * pn_y[e + NPROMA];
        double norm = u[iv[2] + NPROMA * k] * pn_x[e + 2 * NPROMA] +
                      v[iv[2] + NPROMA * k] * pn_y[e + 2 * NPROMA] +
                      u[iv[3] + NPROMA * k] * pn_x[e + 3 * NPROMA] +
                      v[iv[3] + NPROMA * k] * pn_y[e + 3 * NPROMA];
        double z = z2[e + NPROMA * k];
        want = 4.0 * ((norm - 2.0 * z) * (ivv[e] * ivv[e]) + (tang - 2.0 * z) * (ipe[e] * ipe[e]));
      }
      if (z4[e + NPROMA * k] != want) {
        fprintf(stderr, "edge %d, level %d: %.17g, expected %.17g\n", e, k, z4[e + NPROMA * k], want);
        ++failures;
      }
    }
  if (failures) return 1;
  printf("c driver: calculate_nabla4 through the C header agrees with C, bit for bit\n");

  /* A refused call: the output shorter than the domain. */
  int status = gt4rs_icon_calculate_nabla4_call(nabla4, u, np, nk, 1, np, v, np, nk, 1, np, pn_x,
                                                np, 4, 1, np, pn_y, np, 4, 1, np, z2, np, nk, 1,
                                                np, ivv, np, 1, ipe, np, 1, z4, 2, nk, 1, np, 0,
                                                EDGES, 0, LEVELS);
  if (status != GT4RS_DOMAIN) {
    fprintf(stderr, "expected GT4RS_DOMAIN, got %d\n", status);
    return 1;
  }
  printf("c driver: refused with status %d: %s\n", status, gt4rs_icon_last_error());
  gt4rs_icon_calculate_nabla4_free(&nabla4);
  if (nabla4 != NULL) return 1;
  return 0;
}
