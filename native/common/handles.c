/*
 * The per-process handle table. The Windows API hands out opaque handles; the flat API is
 * handle-free (objects by ID), so a handle here is an index into a table of (kind, ID, payload).
 * A value is (slot + 1) << 2 with a per-DLL tag in bits 20 and up: never NULL, never a valid
 * pointer, reused after close as Windows reuses handle values, and refused by the other DLLs.
 */
#include "hnsim.h"

#include <stdlib.h>
#include <string.h>

/* each DLL's .c file defines its tag (1 computenetwork, 2 vmcompute, 3 computecore) */
extern const unsigned hn_handle_tag;
#define HN_HANDLE_TAG ((ULONG_PTR)hn_handle_tag)

#define SLOT_BITS 18
#define MAX_SLOTS (1u << SLOT_BITS)

typedef struct slot {
  hn_kind kind;
  char *id;
  void *payload;
} slot;

static CRITICAL_SECTION g_lock;
static int g_ready;
static slot *g_slots;
static size_t g_count; /* slots in use or ever used: g_slots[0..g_count) */
static size_t g_cap;

void hn_handles_init(void) {
  InitializeCriticalSection(&g_lock);
  g_ready = 1;
}

void hn_handles_fini(int unloading) {
  if (!g_ready || !unloading) return;
  for (size_t i = 0; i < g_count; i++) free(g_slots[i].id);
  free(g_slots);
  g_slots = NULL;
  g_count = g_cap = 0;
  DeleteCriticalSection(&g_lock);
  g_ready = 0;
}

static HANDLE value_of(size_t index) {
  return (HANDLE)(((ULONG_PTR)HN_HANDLE_TAG << (SLOT_BITS + 2)) | ((ULONG_PTR)(index + 1) << 2));
}

/* The slot a handle value names, or (size_t)-1. */
static size_t index_of(HANDLE h) {
  ULONG_PTR v = (ULONG_PTR)h;
  if ((v & 3) != 0 || (v >> (SLOT_BITS + 2)) != HN_HANDLE_TAG) return (size_t)-1;
  size_t i = (size_t)((v >> 2) & (MAX_SLOTS - 1));
  return i == 0 ? (size_t)-1 : i - 1;
}

HANDLE hn_handle_new(hn_kind kind, const char *id, void *payload) {
  char *copy = _strdup(id ? id : "");
  if (!copy) return NULL;
  HANDLE h = NULL;
  EnterCriticalSection(&g_lock);
  /* the lowest free slot first, so closed values come back as Windows reuses handle values */
  size_t i = 0;
  while (i < g_count && g_slots[i].kind != HN_KIND_FREE) i++;
  if (i == g_count) {
    if (g_count == g_cap) {
      size_t cap = g_cap ? g_cap * 2 : 64;
      slot *s = cap < MAX_SLOTS ? realloc(g_slots, cap * sizeof *s) : NULL;
      if (!s) goto out;
      g_slots = s;
      g_cap = cap;
    }
    g_count++;
  }
  g_slots[i].kind = kind;
  g_slots[i].id = copy;
  g_slots[i].payload = payload;
  copy = NULL;
  h = value_of(i);
out:
  LeaveCriticalSection(&g_lock);
  free(copy);
  return h;
}

int hn_handle_get(HANDLE h, hn_kind kind, char **id, void **payload) {
  size_t i = index_of(h);
  int ok = 0;
  if (id) *id = NULL;
  EnterCriticalSection(&g_lock);
  if (i < g_count && g_slots[i].kind == kind) {
    ok = 1;
    if (id) {
      *id = _strdup(g_slots[i].id);
      if (!*id) ok = 0;
    }
    if (ok && payload) *payload = g_slots[i].payload;
  }
  LeaveCriticalSection(&g_lock);
  return ok;
}

int hn_handle_close(HANDLE h, hn_kind kind, void **payload) {
  size_t i = index_of(h);
  int ok = 0;
  EnterCriticalSection(&g_lock);
  if (i < g_count && g_slots[i].kind == kind) {
    ok = 1;
    if (payload) *payload = g_slots[i].payload;
    free(g_slots[i].id);
    g_slots[i].id = NULL;
    g_slots[i].payload = NULL;
    g_slots[i].kind = HN_KIND_FREE;
  }
  LeaveCriticalSection(&g_lock);
  return ok;
}

int hn_handle_swap(HANDLE h, hn_kind kind, void *payload, void **old) {
  size_t i = index_of(h);
  int ok = 0;
  EnterCriticalSection(&g_lock);
  if (i < g_count && g_slots[i].kind == kind) {
    ok = 1;
    if (old) *old = g_slots[i].payload;
    g_slots[i].payload = payload;
  }
  LeaveCriticalSection(&g_lock);
  return ok;
}

int hn_handle_count(hn_kind kind, const char *id) {
  int n = 0;
  EnterCriticalSection(&g_lock);
  for (size_t i = 0; i < g_count; i++)
    if (g_slots[i].kind == kind && hn_same_id(g_slots[i].id, id)) n++;
  LeaveCriticalSection(&g_lock);
  return n;
}
