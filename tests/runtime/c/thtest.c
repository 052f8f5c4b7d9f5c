/* Lets the Python tests call a TH function and recover when it raises THError. */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "THGeneral.h"

static _Thread_local jmp_buf *recoverTo = NULL;
static _Thread_local char lastError[2048];

static void jumpBack(const char *msg, void *data)
{
  (void)data;
  snprintf(lastError, sizeof lastError, "%s", msg);
  longjmp(*recoverTo, 1);
}

/* Every TH function the tests call this way takes at most 6 integer or pointer arguments and at
 * most 8 floating-point ones. The x86-64 System V and AArch64 calling conventions assign those
 * to integer and vector registers independently, in order, so passing all 14 registers reaches
 * any such function with its arguments where it expects them; it ignores the rest. A float
 * argument travels as the low 32 bits of its double slot. */
typedef intptr_t (*AnyFn)(intptr_t, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t,
                          double, double, double, double, double, double, double, double);

/* Calls fn under an error handler that longjmps back here. Returns 0 and stores fn's result
 * (when it is an integer or pointer) in *result, or 1 if fn raised THError, whose message
 * THTest_lastError then returns. */
int THTest_call(void (*fn)(void), const intptr_t *ints, const double *fps, intptr_t *result)
{
  jmp_buf here;
  jmp_buf *outer = recoverTo;
  volatile int raised = 0;
  recoverTo = &here;
  lastError[0] = '\0';
  THSetErrorHandler(jumpBack, NULL);
  if (setjmp(here) == 0) {
    intptr_t r = ((AnyFn)fn)(ints[0], ints[1], ints[2], ints[3], ints[4], ints[5],
                             fps[0], fps[1], fps[2], fps[3], fps[4], fps[5], fps[6], fps[7]);
    if (result)
      *result = r;
  } else {
    raised = 1;
  }
  THSetDefaultErrorHandler();
  recoverTo = outer;
  return raised;
}

const char *THTest_lastError(void)
{
  return lastError;
}
