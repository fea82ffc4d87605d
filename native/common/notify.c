/*
 * Compute-system callbacks (vmcompute's HcsRegisterComputeSystemCallback, computecore's
 * HcsSetComputeSystemCallback). The line protocol has no push channel, so the only notification
 * delivered is the one this process causes: SystemExited after a Shutdown or Terminate made
 * through this DLL, so that hcsshim's System.Wait returns. It arrives on a thread of its own, as
 * HCS calls back from its own threads.
 *
 * Unregistering waits for a running callback to return and guarantees no call after it, as HCS
 * does ("no further callbacks fire past close"): a callback runs with g_lock held (a critical
 * section, so the callback may itself unregister).
 */
#include "hnsim.h"

#include <stdlib.h>
#include <string.h>

typedef void(CALLBACK *vmcompute_callback)(DWORD type, void *context, HRESULT status, PCWSTR data);

/* HCS_EVENT as computecore passes it (ComputeCoreTypes.h: Type, EventData, Operation). */
typedef struct hcs_event {
  DWORD type;
  PCWSTR data;
  HANDLE operation;
} hcs_event;
typedef void(CALLBACK *computecore_callback)(const hcs_event *event, void *context);

struct hn_watch {
  hn_watch *next;
  char *id;
  hn_watch_style style;
  void *fn;
  void *context;
  int live;  /* FALSE once unregistered */
  LONG refs; /* the list's reference and one per delivery in flight */
};

static CRITICAL_SECTION g_lock;
static int g_ready;
static hn_watch *g_list;

void hn_watch_init(void) {
  InitializeCriticalSection(&g_lock);
  g_ready = 1;
}

void hn_watch_fini(int unloading) {
  if (!g_ready || !unloading) return;
  while (g_list) {
    hn_watch *w = g_list;
    g_list = w->next;
    free(w->id);
    free(w);
  }
  DeleteCriticalSection(&g_lock);
  g_ready = 0;
}

static void release(hn_watch *w) {
  if (--w->refs == 0) {
    free(w->id);
    free(w);
  }
}

hn_watch *hn_watch_add(const char *id, hn_watch_style style, void *fn, void *context) {
  hn_watch *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->id = _strdup(id);
  if (!w->id) {
    free(w);
    return NULL;
  }
  w->style = style;
  w->fn = fn;
  w->context = context;
  w->live = 1;
  w->refs = 1;
  EnterCriticalSection(&g_lock);
  w->next = g_list;
  g_list = w;
  LeaveCriticalSection(&g_lock);
  return w;
}

void hn_watch_remove(hn_watch *w) {
  if (!w) return;
  EnterCriticalSection(&g_lock);
  for (hn_watch **p = &g_list; *p; p = &(*p)->next) {
    if (*p == w) {
      *p = w->next;
      w->live = 0;
      release(w);
      break;
    }
  }
  LeaveCriticalSection(&g_lock);
}

typedef struct delivery {
  hn_watch **targets;
  size_t count;
  DWORD type;
  PWSTR data;
} delivery;

static void free_delivery(delivery *d) {
  EnterCriticalSection(&g_lock);
  for (size_t i = 0; i < d->count; i++) release(d->targets[i]);
  LeaveCriticalSection(&g_lock);
  free(d->targets);
  CoTaskMemFree(d->data);
  free(d);
}

static DWORD WINAPI deliver(void *arg) {
  delivery *d = arg;
  for (size_t i = 0; i < d->count; i++) {
    hn_watch *w = d->targets[i];
    EnterCriticalSection(&g_lock);
    if (w->live && w->fn) {
      if (w->style == HN_WATCH_VMCOMPUTE) {
        ((vmcompute_callback)w->fn)(d->type, w->context, S_OK, d->data);
      } else {
        hcs_event e = {d->type, d->data, NULL};
        ((computecore_callback)w->fn)(&e, w->context);
      }
    }
    LeaveCriticalSection(&g_lock);
  }
  free_delivery(d);
  /* the thread held a reference to this DLL so that it could not be unloaded under it */
  FreeLibraryAndExitThread(hn_self(), 0);
  return 0;
}

void hn_watch_exited(const char *id, DWORD type, const char *data) {
  delivery *d = calloc(1, sizeof *d);
  if (!d) return;
  d->type = type;
  d->data = hn_cotask_wide(data, strlen(data));
  EnterCriticalSection(&g_lock);
  size_t n = 0;
  for (hn_watch *w = g_list; w; w = w->next)
    if (hn_same_id(w->id, id)) n++;
  d->targets = n ? calloc(n, sizeof *d->targets) : NULL;
  if (d->targets) {
    for (hn_watch *w = g_list; w; w = w->next) {
      if (!hn_same_id(w->id, id)) continue;
      w->refs++;
      d->targets[d->count++] = w;
    }
  }
  LeaveCriticalSection(&g_lock);
  if (d->count == 0 || !d->data) {
    free_delivery(d);
    return;
  }
  HMODULE self;
  if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS, (LPCWSTR)(void *)deliver, &self)) {
    free_delivery(d);
    return;
  }
  HANDLE t = CreateThread(NULL, 0, deliver, d, 0, NULL);
  if (!t) {
    FreeLibrary(self);
    free_delivery(d);
    return;
  }
  CloseHandle(t);
}
