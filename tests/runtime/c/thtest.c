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

typedef intptr_t (*Fn0)(void);
typedef intptr_t (*Fn1)(intptr_t);
typedef intptr_t (*Fn2)(intptr_t, intptr_t);
typedef intptr_t (*Fn3)(intptr_t, intptr_t, intptr_t);
typedef intptr_t (*Fn4)(intptr_t, intptr_t, intptr_t, intptr_t);
typedef intptr_t (*Fn5)(intptr_t, intptr_t, intptr_t, intptr_t, intptr_t);
typedef intptr_t (*Fn6)(intptr_t, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t);

/* Calls fn with nargs integer or pointer arguments (x86-64/AArch64 pass narrower integers in the
 * same registers). Returns 0 and stores fn's result in *result, or 1 if fn raised THError, whose
 * message THTest_lastError then returns. */
int THTest_call(void (*fn)(void), int nargs, const intptr_t *args, intptr_t *result)
{
  jmp_buf here;
  jmp_buf *outer = recoverTo;
  volatile int raised = 0;
  recoverTo = &here;
  lastError[0] = '\0';
  THSetErrorHandler(jumpBack, NULL);
  if (setjmp(here) == 0) {
    intptr_t r = 0;
    switch (nargs) {
    case 0: r = ((Fn0)fn)(); break;
    case 1: r = ((Fn1)fn)(args[0]); break;
    case 2: r = ((Fn2)fn)(args[0], args[1]); break;
    case 3: r = ((Fn3)fn)(args[0], args[1], args[2]); break;
    case 4: r = ((Fn4)fn)(args[0], args[1], args[2], args[3]); break;
    case 5: r = ((Fn5)fn)(args[0], args[1], args[2], args[3], args[4]); break;
    case 6: r = ((Fn6)fn)(args[0], args[1], args[2], args[3], args[4], args[5]); break;
    default:
      snprintf(lastError, sizeof lastError, "THTest_call: %d arguments are not supported", nargs);
      raised = 2;
    }
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
