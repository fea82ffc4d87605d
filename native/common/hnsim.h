/*
 * Shared by the replacement computenetwork.dll, vmcompute.dll and computecore.dll (issue 10): each
 * DLL turns the Windows exports into calls of the simulator's flat API over its JSON-RPC line
 * protocol on loopback TCP (`hnsim serve --listen`, src/api/rpc.ts), and keeps the handles the
 * Windows API hands out in a per-process table, because the flat API addresses objects by ID.
 *
 * Every DLL links its own copy of this code: one connection, one handle table per DLL per process.
 *
 * Environment:
 *   HNSIM_ENDPOINT    host:port of the simulator (127.0.0.1:PORT, [::1]:PORT, localhost:PORT)
 *   HNSIM_TIMEOUT_MS  connect, send and answer timeout in milliseconds (default 5000)
 */
#ifndef HNSIM_COMMON_H
#define HNSIM_COMMON_H

#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <objbase.h>
#include <stddef.h>

/* HRESULTs the DLLs produce themselves (winerror.h values, written out for older headers). */
#define HN_S_OK ((HRESULT)0)
#define HN_E_NOTIMPL ((HRESULT)0x80004001L)
#define HN_E_POINTER ((HRESULT)0x80004003L)
#define HN_E_FAIL ((HRESULT)0x80004005L)
#define HN_E_HANDLE ((HRESULT)0x80070006L)       /* HRESULT_FROM_WIN32(ERROR_INVALID_HANDLE) */
#define HN_E_OUTOFMEMORY ((HRESULT)0x8007000EL)
#define HN_E_INVALIDARG ((HRESULT)0x80070057L)
#define HN_RPC_S_SERVER_UNAVAILABLE ((HRESULT)0x800706BAL)
#define HN_RPC_S_CALL_FAILED ((HRESULT)0x800706BEL)
#define HN_RPC_S_UNKNOWN_IF ((HRESULT)0x800706B5L)
#define HN_EPT_S_NOT_REGISTERED ((HRESULT)0x800706D9L)

/* ───────────────────────── strings and JSON text ───────────────────────── */

/* A growable byte buffer. An allocation failure sets `failed` and makes later appends no-ops. */
typedef struct hn_buf {
  char *data;
  size_t len;
  size_t cap;
  int failed;
} hn_buf;

void hn_buf_init(hn_buf *b);
void hn_buf_free(hn_buf *b);
void hn_buf_raw(hn_buf *b, const char *s, size_t n);
void hn_buf_cstr(hn_buf *b, const char *s);
/* A JSON string literal holding the UTF-8 text s[0..n). */
void hn_buf_json_utf8(hn_buf *b, const char *s, size_t n);
/* A JSON string literal holding a UTF-16 string, or `null` when s is NULL. */
void hn_buf_json_wstr(hn_buf *b, PCWSTR s);
/* A GUID as a JSON string "XXXXXXXX-XXXX-…" (upper case, no braces), or `null` when g is NULL. */
void hn_buf_json_guid(hn_buf *b, const GUID *g);
/* A signed 64-bit integer. */
void hn_buf_int(hn_buf *b, long long v);

/* A slice of JSON text (not NUL-terminated). */
typedef struct hn_span {
  const char *p;
  size_t n;
} hn_span;

/* The member `key` of the JSON object `obj`; FALSE when obj is not an object or has no such key. */
int hn_json_member(hn_span obj, const char *key, hn_span *out);
/* A JSON string literal decoded into malloc'd UTF-8; NULL when `s` is not a string (or no memory). */
char *hn_json_string(hn_span s);
/* A JSON number that is an integer in [-2^63, 2^63); FALSE otherwise. */
int hn_json_int(hn_span s, long long *out);
/*
 * The elements of the JSON array `arr`, one per call: `*pos` starts at 0 and is advanced past each
 * element; FALSE at the end (or when `arr` is not an array).
 */
int hn_json_next(hn_span arr, size_t *pos, hn_span *item);
/* Whether the span is the literal `true`. */
int hn_json_bool(hn_span s);
/* Whether the span is the literal `null` (or empty). */
int hn_json_is_null(hn_span s);

/* UTF-16 → malloc'd UTF-8 (NULL for NULL or no memory). */
char *hn_utf8_from_wide(PCWSTR s);
/* UTF-8 text → a UTF-16 string allocated with CoTaskMemAlloc, for the caller to CoTaskMemFree. */
PWSTR hn_cotask_wide(const char *s, size_t n);

/* ───────────────────────── the simulator connection ───────────────────────── */

/* The answer to one flat API call. */
typedef struct hn_reply {
  HRESULT hr;      /* S_OK, or the failure */
  int reached;     /* the simulator answered (FALSE: the call never got an answer, no record) */
  char *line;      /* the response line (owned); the spans point into it */
  hn_span result;  /* `result` when hr is S_OK */
  hn_span record;  /* `error.data.errorRecord` as the simulator wrote it (n == 0 when none) */
  char *message;   /* `error.message` (malloc'd UTF-8), NULL when none */
} hn_reply;

/*
 * Call the flat API method `method` with the JSON array `params` (the whole "[…]" text). Never
 * fails to fill `r`: an unreachable simulator is RPC_S_SERVER_UNAVAILABLE, an answer lost after the
 * request went out (reset, timeout) RPC_S_CALL_FAILED. Free with hn_reply_free.
 */
void hn_call(const char *method, const hn_buf *params, hn_reply *r);
/* hn_call with the params array of `n` strings (each NULL → null), the common case of the exports. */
void hn_call_wstrs(const char *method, hn_reply *r, int n, ...);
/* hn_call on the object named `id` (a system's or a handle's ID): [id], or [id, text] when with_text (NULL → null). */
void hn_call_id(const char *method, const char *id, int with_text, PCWSTR text, hn_reply *r);
void hn_reply_free(hn_reply *r);

/* ───────────────────────── results handed to the caller ───────────────────────── */

/* Write the UTF-16 copy of a JSON span to *out (CoTaskMemAlloc); E_OUTOFMEMORY if that fails. */
HRESULT hn_out_span(PWSTR *out, hn_span s);
/* Codes that mean the call never reached a service (no ErrorRecord, no ResultError with them). */
int hn_is_transport_failure(HRESULT hr);
/* Store NULL in an optional out-string. */
void hn_out_null(PWSTR *out);
/* The HCN ErrorRecord of a failed reply (what HNS wrote beside the HRESULT), or nothing. */
void hn_out_record(PWSTR *record, const hn_reply *r);
/*
 * An HCS ResultError document `{"Error":<hr>,"ErrorMessage":"…"}` (hcsshim's hcsResult) for a
 * failed Hcs* call that reached the service: `message`, else the reply's message.
 */
void hn_out_hcs_result(PWSTR *result, HRESULT hr, const char *message);

/* ───────────────────────── handles ───────────────────────── */

typedef enum hn_kind {
  HN_KIND_FREE = 0,
  HN_KIND_NETWORK,
  HN_KIND_ENDPOINT,
  HN_KIND_NAMESPACE,
  HN_KIND_LOADBALANCER,
  HN_KIND_ROUTE,
  HN_KIND_SERVICE,
  HN_KIND_HCN_CALLBACK,
  HN_KIND_SYSTEM,
  HN_KIND_SYSTEM_CALLBACK,
  HN_KIND_OPERATION
} hn_kind;

/*
 * A new handle of `kind` for the object `id` (copied) with an optional payload. NULL when out of
 * memory. Handle values are small tagged integers, reused after close as Windows reuses handles.
 */
HANDLE hn_handle_new(hn_kind kind, const char *id, void *payload);
/* The object ID (malloc'd copy) and payload of a live handle of `kind`; FALSE for any other value. */
int hn_handle_get(HANDLE h, hn_kind kind, char **id, void **payload);
/* Close a live handle of `kind`, giving back its payload; FALSE when it is not one. */
int hn_handle_close(HANDLE h, hn_kind kind, void **payload);
/* Replace the payload of a live handle of `kind` (the old one to *old); FALSE when it is not one. */
int hn_handle_swap(HANDLE h, hn_kind kind, void *payload, void **old);
/* How many live handles of `kind` name `id` (compared without case). */
int hn_handle_count(hn_kind kind, const char *id);

/* ───────────────────────── notifications ───────────────────────── */

/* How a registered callback is called. */
typedef enum hn_watch_style {
  HN_WATCH_VMCOMPUTE,  /* HCS_NOTIFICATION_CALLBACK(type, context, status, data) */
  HN_WATCH_COMPUTECORE /* HCS_EVENT_CALLBACK(const HCS_EVENT *event, context) */
} hn_watch_style;

typedef struct hn_watch hn_watch;

/* Register a callback for the compute system `id`. NULL when out of memory. */
hn_watch *hn_watch_add(const char *id, hn_watch_style style, void *fn, void *context);
/* Unregister: once this returns, the callback is not running and will not be called again. */
void hn_watch_remove(hn_watch *w);
/*
 * Tell every callback watching `id` that the system exited (`type` is the API's SystemExited
 * code; `data` the SystemExitStatus JSON), from a thread of its own as HCS does.
 */
void hn_watch_exited(const char *id, DWORD type, const char *data);

/* ───────────────────────── compute systems (vmcompute.dll, computecore.dll) ───────────────────────── */

/* A failure code in the DLL's own spelling: vmcompute's 0xC037… or computecore's 0x8037…. */
HRESULT hn_hcs_spell(HRESULT hr, int vmcompute);
/*
 * Finish an Hcs* call: on success its document to *doc (when doc is given); on a failure that
 * reached the simulator, the code respelled and a ResultError document to *result. Frees r.
 */
HRESULT hn_hcs_finish(hn_reply *r, int vmcompute, PWSTR *doc, PWSTR *result);
/* A ResultError document for a failure the DLL decides itself: the Windows text, then the detail. */
void hn_hcs_local_result(PWSTR *result, HRESULT hr, const char *detail);
/* A new system handle for the system whose properties document this is (its "Id", else `id`). */
HANDLE hn_hcs_handle_for(hn_span properties, PCWSTR id);
/* Open the system `id` (it must exist): a new HN_KIND_SYSTEM handle in *out. */
HRESULT hn_hcs_open(PCWSTR id, HANDLE *out, int vmcompute, PWSTR *result);
/*
 * Close a system handle: `drop` (when given) gets its payload, then the last handle of the process
 * to that system closes the system in the simulator. FALSE when h is not a system handle.
 */
int hn_hcs_close(HANDLE h, void (*drop)(void *payload));
/* Notify the callbacks watching `id` that it stopped (`exit_type`: GracefulExit or ForcedExit). */
void hn_hcs_exited(const char *id, const char *exit_type);

/* ───────────────────────── DLL life ───────────────────────── */

/* Per-module set-up and tear-down (`unloading`: FreeLibrary, not process exit). */
void hn_rpc_init(void);
void hn_rpc_fini(int unloading);
void hn_handles_init(void);
void hn_handles_fini(int unloading);
void hn_watch_init(void);
void hn_watch_fini(int unloading);

/* Each DLL's own set-up and tear-down (its .c file defines them; common/dllmain.c calls them). */
void hn_module_attach(void);
void hn_module_detach(int unloading);
/* The DLL's own module handle (the notification threads keep it loaded while they run). */
HINSTANCE hn_self(void);

/* Compare two ASCII/UTF-8 strings without case for ASCII letters. */
int hn_same_id(const char *a, const char *b);

#endif
