/* Many threads materialize lazy clones of one storage at the same moment (seed 003), while in
 * some rounds other threads drop their clones instead. Checks that every clone ends with its
 * own writes over the original data, that the source never changes, that at most one holder
 * keeps the shared data without copying (exactly one when all of them write), and that nothing
 * leaks. Run under ThreadSanitizer by tests/runtime/test_sanitizers.py. Exit status 0 = pass. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "TH.h"

enum { THREADS = 8, ROUNDS = 150, N = 2048 };

typedef struct Job {
  THDoubleStorage *clone;
  int id;
  int dropInstead;
  const double *shared;
  int stole;
  int sawOriginal;
} Job;

static pthread_barrier_t start;

static void *work(void *arg)
{
  Job *job = arg;
  pthread_barrier_wait(&start);
  if (job->dropInstead) {
    THDoubleStorage_free(job->clone);
    job->clone = NULL;
    return NULL;
  }
  double *data = THDoubleStorage_data(job->clone);
  job->stole = (data == job->shared);
  job->sawOriginal = 1;
  for (int i = 0; i < N; i++)
    if (data[i] != (double)i)
      job->sawOriginal = 0;
  for (int i = 0; i < N; i++)
    data[i] = (double)(job->id * N + i);
  return NULL;
}

static int runRound(int round)
{
  int keepSource = round % 3 == 0;
  int dropSome = round % 2 == 1;
  int failures = 0;

  THDoubleStorage *source = THDoubleStorage_newWithSize(N);
  double *init = THDoubleStorage_data(source);
  for (int i = 0; i < N; i++)
    init[i] = (double)i;

  Job jobs[THREADS];
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++) {
    jobs[t].clone = THDoubleStorage_newLazyClone(source);
    jobs[t].id = t + 1;
    jobs[t].dropInstead = dropSome && t % 3 == 0;
    jobs[t].shared = THDoubleStorage_constData(source);
    jobs[t].stole = 0;
    jobs[t].sawOriginal = 0;
  }
  if (!keepSource) {
    THDoubleStorage_free(source);
    source = NULL;
  }

  pthread_barrier_init(&start, NULL, THREADS);
  for (int t = 0; t < THREADS; t++)
    pthread_create(&threads[t], NULL, work, &jobs[t]);
  for (int t = 0; t < THREADS; t++)
    pthread_join(threads[t], NULL);
  pthread_barrier_destroy(&start);

  int stolen = 0;
  for (int t = 0; t < THREADS; t++) {
    if (jobs[t].dropInstead)
      continue;
    stolen += jobs[t].stole;
    if (!jobs[t].sawOriginal) {
      fprintf(stderr, "round %d: thread %d did not see the original data\n", round, t);
      failures++;
    }
    const double *data = THDoubleStorage_constData(jobs[t].clone);
    for (int i = 0; i < N; i++) {
      if (data[i] != (double)(jobs[t].id * N + i)) {
        fprintf(stderr, "round %d: clone %d has %g at %d\n", round, t, data[i], i);
        failures++;
        break;
      }
    }
    if (THDoubleStorage_isLazyClone(jobs[t].clone)) {
      fprintf(stderr, "round %d: clone %d is still lazy after a write\n", round, t);
      failures++;
    }
    THDoubleStorage_free(jobs[t].clone);
  }

  int expectedSteals = (!keepSource && !dropSome) ? 1 : 0;
  if (keepSource ? stolen != 0 : (dropSome ? stolen > 1 : stolen != expectedSteals)) {
    fprintf(stderr, "round %d: %d holders kept the shared data\n", round, stolen);
    failures++;
  }
  if (source) {
    const double *data = THDoubleStorage_constData(source);
    for (int i = 0; i < N; i++) {
      if (data[i] != (double)i) {
        fprintf(stderr, "round %d: the source changed at %d\n", round, i);
        failures++;
        break;
      }
    }
    THDoubleStorage_free(source);
  }
  return failures;
}

/* --race: two threads write one storage with no synchronization, the kind of bug TSan must
 * report; the test suite runs it to show the instrumentation is live. */
static void *scribble(void *arg)
{
  double *data = THDoubleStorage_data(arg);
  for (int i = 0; i < N; i++)
    data[i] = (double)i;
  return NULL;
}

static int race(void)
{
  THDoubleStorage *shared = THDoubleStorage_newWithSize(N);
  pthread_t a, b;
  pthread_create(&a, NULL, scribble, shared);
  pthread_create(&b, NULL, scribble, shared);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  THDoubleStorage_free(shared);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "--race") == 0)
    return race();
  int failures = 0;
  for (int round = 0; round < ROUNDS && failures == 0; round++)
    failures += runRound(round);
  for (int kind = 0; kind < TH_LIVE_KINDS; kind++) {
    if (THLiveObjects(kind) != 0) {
      fprintf(stderr, "%ld objects of kind %d leaked\n", THLiveObjects(kind), kind);
      failures++;
    }
  }
  if (failures == 0)
    printf("cow_threads: %d rounds of %d threads passed\n", ROUNDS, THREADS);
  return failures == 0 ? 0 : 1;
}
