/* refcheck's stand-in omp.h: declarations only, for parsing code built with -fopenmp when the
 * clang resource directory in use ships no omp.h (the clang-tidy wheel's does not). The
 * `#pragma omp` directives themselves are parsed by clang as usual; only the runtime library's
 * functions are declared here. Used with -idirafter, so a real omp.h on the path wins. */
#ifndef REFCHECK_OMP_H
#define REFCHECK_OMP_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct refcheck_omp_lock { void *opaque; } omp_lock_t;
typedef struct refcheck_omp_nest_lock { void *opaque; } omp_nest_lock_t;

int omp_get_num_threads(void);
int omp_get_thread_num(void);
int omp_get_max_threads(void);
int omp_get_num_procs(void);
void omp_set_num_threads(int num_threads);
int omp_in_parallel(void);
void omp_set_dynamic(int dynamic_threads);
int omp_get_dynamic(void);
void omp_set_nested(int nested);
int omp_get_nested(void);
double omp_get_wtime(void);
double omp_get_wtick(void);
void omp_init_lock(omp_lock_t *lock);
void omp_destroy_lock(omp_lock_t *lock);
void omp_set_lock(omp_lock_t *lock);
void omp_unset_lock(omp_lock_t *lock);
int omp_test_lock(omp_lock_t *lock);
void omp_init_nest_lock(omp_nest_lock_t *lock);
void omp_destroy_nest_lock(omp_nest_lock_t *lock);
void omp_set_nest_lock(omp_nest_lock_t *lock);
void omp_unset_nest_lock(omp_nest_lock_t *lock);
int omp_test_nest_lock(omp_nest_lock_t *lock);

#ifdef __cplusplus
}
#endif

#endif
