/* Achieved memory bandwidth of THC's kernels against the device's limits (issue 13).
 *
 * For each size (MiB per tensor) it times fill, copy (contiguous, and from a transposed view),
 * mul, cadd and sum through the public THC API on the state's stream, and a plain cudaMemcpy
 * device-to-device alongside as the practical ceiling. Peak bandwidth is read from the device
 * attributes (memory clock x bus width x 2 for double data rate). Results are one JSON object on
 * stdout; benchmarks/thc_bandwidth.py builds this program, runs it and writes the tables.
 *
 * Exit codes: 0 measured; 1 a sanity check failed (wrong sum, objects left alive); 2 usage;
 * 3 no CUDA device (nothing was measured). */

#include "THCTensor.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_MEASURED = 0, EXIT_SANITY = 1, EXIT_USAGE = 2, EXIT_NO_DEVICE = 3 };

#define CHECK(EXPR)                                                                             \
  do {                                                                                          \
    cudaError_t err_ = (EXPR);                                                                  \
    if (err_ != cudaSuccess) {                                                                  \
      fprintf(stderr, "thc_bandwidth: %s: %s\n", #EXPR, cudaGetErrorString(err_));             \
      exit(EXIT_SANITY);                                                                        \
    }                                                                                           \
  } while (0)

typedef struct Timer {
  cudaEvent_t start, stop;
  cudaStream_t stream;
} Timer;

static int first_result = 1;

static void emit(const char *op, long mib, double bytes, float ms, int reps, double peak_gbs, double ceiling_gbs)
{
  double seconds = ms / 1e3 / reps;
  double gbs = bytes / seconds / 1e9;
  printf("%s    {\"op\": \"%s\", \"mib\": %ld, \"bytes\": %.0f, \"reps\": %d, \"ms\": %.6f, \"gbs\": %.3f, "
         "\"share_of_peak\": %.4f, \"share_of_memcpy\": %.4f}",
         first_result ? "" : ",\n", op, mib, bytes, reps, seconds * 1e3, gbs, gbs / peak_gbs, gbs / ceiling_gbs);
  first_result = 0;
  fflush(stdout);
}

/* Milliseconds for `reps` runs of BODY on the stream, after one untimed warm-up run. */
#define TIME(TIMER, REPS, MS, BODY)                                   \
  do {                                                                \
    BODY;                                                             \
    CHECK(cudaStreamSynchronize((TIMER).stream));                     \
    CHECK(cudaEventRecord((TIMER).start, (TIMER).stream));            \
    for (int rep_ = 0; rep_ < (REPS); rep_++) {                       \
      BODY;                                                           \
    }                                                                 \
    CHECK(cudaEventRecord((TIMER).stop, (TIMER).stream));             \
    CHECK(cudaEventSynchronize((TIMER).stop));                        \
    CHECK(cudaEventElapsedTime(&(MS), (TIMER).start, (TIMER).stop));  \
  } while (0)

static void usage(void)
{
  fprintf(stderr, "usage: thc_bandwidth [--sizes MIB[,MIB...]] [--reps N]\n"
                  "  MiB per tensor (default 256,1024); N timed repetitions (default 20)\n");
  exit(EXIT_USAGE);
}

int main(int argc, char **argv)
{
  long sizes[8] = {256, 1024};
  int nsizes = 2, reps = 20;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
      nsizes = 0;
      for (char *tok = strtok(argv[++i], ","); tok; tok = strtok(NULL, ",")) {
        char *end;
        long v = strtol(tok, &end, 10);
        if (*end || v < 1 || v > (1L << 20) || nsizes == 8)
          usage();
        sizes[nsizes++] = v;
      }
      if (nsizes == 0)
        usage();
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      char *end;
      reps = (int)strtol(argv[++i], &end, 10);
      if (*end || reps < 1 || reps > 100000)
        usage();
    } else {
      usage();
    }
  }

  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    fprintf(stderr, "thc_bandwidth: no CUDA device: %s\n",
            err != cudaSuccess ? cudaGetErrorString(err) : "cudaGetDeviceCount reports 0 devices");
    return EXIT_NO_DEVICE;
  }

  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0, bus_bits = 0, driver = 0, runtime = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0));
  CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  double peak_gbs = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;

  THCState *state = THCState_new(0);
  Timer timer;
  timer.stream = THCState_getStream(state);
  CHECK(cudaEventCreate(&timer.start));
  CHECK(cudaEventCreate(&timer.stop));

  printf("{\n  \"device\": \"%s\", \"compute_capability\": \"%d.%d\", \"sms\": %d,\n"
         "  \"memory_clock_khz\": %d, \"memory_bus_bits\": %d, \"peak_gbs\": %.3f,\n"
         "  \"driver_version\": %d, \"runtime_version\": %d, \"reps\": %d,\n  \"results\": [\n",
         prop.name, prop.major, prop.minor, prop.multiProcessorCount, clock_khz, bus_bits, peak_gbs, driver,
         runtime, reps);

  int sane = 1;
  for (int s = 0; s < nsizes; s++) {
    long mib = sizes[s];
    int64_t n = (int64_t)mib * (1 << 20) / (int64_t)sizeof(float);
    /* The transposed copy is of a square matrix of (about) the same size. */
    int64_t side = (int64_t)sqrt((double)n);
    THCudaTensor *a = THCudaTensor_newWithSize1d(state, n);
    THCudaTensor *b = THCudaTensor_newWithSize1d(state, n);
    THCudaTensor *c = THCudaTensor_newWithSize1d(state, n);
    double bytes = (double)n * sizeof(float);
    float ms = 0;

    TIME(timer, reps, ms, CHECK(cudaMemcpyAsync(THCudaTensor_data(state, a), THCudaTensor_data(state, b),
                                                (size_t)bytes, cudaMemcpyDeviceToDevice, timer.stream)));
    double ceiling_gbs = 2 * bytes / (ms / 1e3 / reps) / 1e9;
    emit("memcpy_d2d", mib, 2 * bytes, ms, reps, peak_gbs, ceiling_gbs);

    TIME(timer, reps, ms, THCudaTensor_fill(state, b, 1.0f));
    emit("fill", mib, bytes, ms, reps, peak_gbs, ceiling_gbs);

    TIME(timer, reps, ms, THCudaTensor_copy(state, a, b));
    emit("copy", mib, 2 * bytes, ms, reps, peak_gbs, ceiling_gbs);

    /* Contiguous copy is a cudaMemcpyAsync inside THC; mul is the same traffic through the
     * pointwise-apply kernel. */
    TIME(timer, reps, ms, THCudaTensor_mul(state, a, b, 3.0f));
    emit("mul", mib, 2 * bytes, ms, reps, peak_gbs, ceiling_gbs);

    THCudaTensor_fill(state, c, 2.0f);
    TIME(timer, reps, ms, THCudaTensor_cadd(state, a, b, 0.5f, c));
    emit("cadd", mib, 3 * bytes, ms, reps, peak_gbs, ceiling_gbs);

    /* sum reads back to the host, so each call ends in a synchronisation: that is its cost too. */
    double total = 0;
    TIME(timer, reps, ms, total = THCudaTensor_sum(state, a));
    emit("sum", mib, bytes, ms, reps, peak_gbs, ceiling_gbs);
    if (total != 2.0 * (double)n) {  /* a = 1 + 0.5 * 2 everywhere: exact in floats and doubles */
      fprintf(stderr, "thc_bandwidth: sum of %ld MiB gave %.17g, expected %.17g\n", mib, total, 2.0 * (double)n);
      sane = 0;
    }

    THCudaTensor *square = THCudaTensor_newWithStorage2d(state, THCudaTensor_storage(state, b), 0, side, side, side, 1);
    THCudaTensor *transposed = THCudaTensor_newTranspose(state, square, 0, 1);
    THCudaTensor *out = THCudaTensor_newWithSize2d(state, side, side);
    double square_bytes = (double)side * side * sizeof(float);
    TIME(timer, reps, ms, THCudaTensor_copy(state, out, transposed));
    emit("copy_transposed", mib, 2 * square_bytes, ms, reps, peak_gbs, ceiling_gbs);

    THCudaTensor_free(state, out);
    THCudaTensor_free(state, transposed);
    THCudaTensor_free(state, square);
    THCudaTensor_free(state, c);
    THCudaTensor_free(state, b);
    THCudaTensor_free(state, a);
  }

  CHECK(cudaEventDestroy(timer.start));
  CHECK(cudaEventDestroy(timer.stop));
  THCState_free(state);
  long live[4] = {THLiveObjects(0), THLiveObjects(1), THLiveObjects(2), THCLiveDeviceBlocks()};
  printf("\n  ],\n  \"live_after\": {\"storage\": %ld, \"tensor\": %ld, \"data\": %ld, \"device_blocks\": %ld}\n}\n",
         live[0], live[1], live[2], live[3]);
  if (live[0] || live[1] || live[2] || live[3]) {
    fprintf(stderr, "thc_bandwidth: objects left alive after the benchmark\n");
    sane = 0;
  }
  return sane ? EXIT_MEASURED : EXIT_SANITY;
}
