/*
 * computecore.dll for hnsim: the HCS v2 API (reference hcs-lifecycle.md §0) answered by the
 * simulator's flat Hcs* functions. The exports and their signatures are those hcsshim binds:
 * microsoft/hcsshim 7c9ff7f48 (v0.15.0-rc.4+4, August 2026), internal/computecore/computecore.go
 * //sys lines and internal/computecore/zsyscall_windows.go (note HcsShutDownComputeSystem's
 * capital D, as computecore spells it).
 *
 * The v2 API is asynchronous: a call takes an HCS_OPERATION, returns S_OK once the work has started,
 * and the operation carries the outcome (HcsWaitForOperationResult / HcsGetOperationResult). The
 * simulator answers at once, so here every operation has completed when the call returns:
 *   - a failure the service decides (unknown system, invalid state, bad JSON) is the operation's
 *     result, with a ResultError document, and the call itself returns S_OK — hcsshim's
 *     submitOperation (Shutdown, Terminate) never looks at it, as on Windows;
 *   - HcsCreateComputeSystem is the exception: a failed create returns its failure from the call
 *     too and no handle, because hcsshim tears a failed create down with Terminate and Close on
 *     the handle it got, and a handle naming an ID already in use would terminate that system;
 *   - a failure decided before any work (a bad handle, an operation already used, an unreachable
 *     simulator) is returned by the call and, for the last, recorded in the operation.
 * A completion callback given to the operation is called on the calling thread before the call
 * returns.
 *
 * Functions the simulator has no model for (processes, save, crash, live migration, namespaces of
 * compute systems, service settings, VM file access, WER reports) return E_NOTIMPL (0x80004001),
 * the code HCS documents for a function it does not implement (HcsCancelOperation). Result strings
 * come from CoTaskMemAlloc; the documentation says LocalFree, hcsshim frees with CoTaskMemFree, and
 * both release the process-heap block these are.
 */
#include "hnsim.h"

#include <stdlib.h>
#include <string.h>

typedef void *HCS_OPERATION, *HCS_SYSTEM, *HCS_PROCESS;
typedef void(CALLBACK *HCS_OPERATION_COMPLETION)(HCS_OPERATION operation, void *context);

typedef struct hcs_process_information {
  DWORD ProcessId;
  DWORD Reserved;
  HANDLE StdInput;
  HANDLE StdOutput;
  HANDLE StdError;
} hcs_process_information;

/* HCS_OPERATION_TYPE (Virtualization-Documentation, hcs/reference/hcs_operation_type). */
enum {
  OP_NONE = -1,
  OP_ENUMERATE = 0,
  OP_CREATE = 1,
  OP_START = 2,
  OP_SHUTDOWN = 3,
  OP_PAUSE = 4,
  OP_RESUME = 5,
  OP_TERMINATE = 7,
  OP_MODIFY = 8,
  OP_GET_PROPERTIES = 9
};

#define HCS_E_OPERATION_NOT_STARTED ((HRESULT)0x80370115L)
#define HCS_E_OPERATION_ALREADY_STARTED ((HRESULT)0x80370116L)

typedef struct operation {
  void *context;
  HCS_OPERATION_COMPLETION callback;
  UINT64 id;
  int type;       /* OP_NONE until a call uses it */
  int done;
  HRESULT hr;
  char *doc;      /* the result document (UTF-8), NULL when none */
  HCS_SYSTEM system;
} operation;

const unsigned hn_handle_tag = 3;

/* Guards every operation's fields, and their handles' lifetime against a concurrent close. */
static CRITICAL_SECTION g_ops;
static UINT64 g_next_op = 1;

void hn_module_attach(void) {
  InitializeCriticalSection(&g_ops);
}
void hn_module_detach(int unloading) {
  if (unloading) DeleteCriticalSection(&g_ops);
}

static HRESULT not_simulated(void) {
  return HN_E_NOTIMPL;
}

/* ───────────────────────── operations ───────────────────────── */

HCS_OPERATION WINAPI HcsCreateOperation(void *context, HCS_OPERATION_COMPLETION callback) {
  operation *op = calloc(1, sizeof *op);
  if (!op) {
    SetLastError(ERROR_NOT_ENOUGH_MEMORY);
    return NULL;
  }
  op->context = context;
  op->callback = callback;
  op->type = OP_NONE;
  EnterCriticalSection(&g_ops);
  op->id = g_next_op++;
  LeaveCriticalSection(&g_ops);
  HCS_OPERATION h = hn_handle_new(HN_KIND_OPERATION, "", op);
  if (!h) {
    free(op);
    SetLastError(ERROR_NOT_ENOUGH_MEMORY);
  }
  return h;
}

/* Event notifications of operations are not delivered (nothing pushes them): a plain operation. */
HCS_OPERATION WINAPI HcsCreateOperationWithNotifications(DWORD eventTypes, void *context, void *callback) {
  (void)eventTypes;
  (void)callback;
  return HcsCreateOperation(context, NULL);
}

void WINAPI HcsCloseOperation(HCS_OPERATION operationHandle) {
  void *p = NULL;
  EnterCriticalSection(&g_ops);
  if (hn_handle_close(operationHandle, HN_KIND_OPERATION, &p)) {
    operation *op = p;
    free(op->doc);
    free(op);
  }
  LeaveCriticalSection(&g_ops);
}

/* The operation a handle names; call with g_ops held. */
static operation *op_of(HCS_OPERATION h) {
  void *p = NULL;
  return hn_handle_get(h, HN_KIND_OPERATION, NULL, &p) ? p : NULL;
}

void *WINAPI HcsGetOperationContext(HCS_OPERATION operationHandle) {
  EnterCriticalSection(&g_ops);
  operation *op = op_of(operationHandle);
  void *context = op ? op->context : NULL;
  LeaveCriticalSection(&g_ops);
  return context;
}

HRESULT WINAPI HcsSetOperationContext(HCS_OPERATION operationHandle, void *context) {
  EnterCriticalSection(&g_ops);
  operation *op = op_of(operationHandle);
  if (op) op->context = context;
  LeaveCriticalSection(&g_ops);
  return op ? S_OK : HN_E_HANDLE;
}

HRESULT WINAPI HcsSetOperationCallback(HCS_OPERATION operationHandle, void *context,
                                       HCS_OPERATION_COMPLETION callback) {
  EnterCriticalSection(&g_ops);
  operation *op = op_of(operationHandle);
  if (op) {
    op->context = context;
    op->callback = callback;
  }
  LeaveCriticalSection(&g_ops);
  return op ? S_OK : HN_E_HANDLE;
}

HCS_SYSTEM WINAPI HcsGetComputeSystemFromOperation(HCS_OPERATION operationHandle) {
  EnterCriticalSection(&g_ops);
  operation *op = op_of(operationHandle);
  HCS_SYSTEM system = op ? op->system : NULL;
  LeaveCriticalSection(&g_ops);
  return system;
}

HCS_PROCESS WINAPI HcsGetProcessFromOperation(HCS_OPERATION operationHandle) {
  (void)operationHandle;
  return NULL; /* no process functions are simulated */
}

int WINAPI HcsGetOperationType(HCS_OPERATION operationHandle) {
  EnterCriticalSection(&g_ops);
  operation *op = op_of(operationHandle);
  int type = op ? op->type : OP_NONE;
  LeaveCriticalSection(&g_ops);
  return type;
}

UINT64 WINAPI HcsGetOperationId(HCS_OPERATION operationHandle) {
  EnterCriticalSection(&g_ops);
  operation *op = op_of(operationHandle);
  UINT64 id = op ? op->id : 0;
  LeaveCriticalSection(&g_ops);
  return id;
}

/* The outcome of an operation: its HRESULT, and its document to *doc when there is one. */
static HRESULT op_result(HCS_OPERATION h, hcs_process_information *info, PWSTR *doc) {
  hn_out_null(doc);
  if (info) memset(info, 0, sizeof *info);
  EnterCriticalSection(&g_ops);
  operation *op = op_of(h);
  HRESULT hr = HN_E_HANDLE;
  if (op) {
    hr = op->done ? op->hr : HCS_E_OPERATION_NOT_STARTED;
    if (op->done && op->doc && doc) {
      *doc = hn_cotask_wide(op->doc, strlen(op->doc));
      if (!*doc && hr == S_OK) hr = HN_E_OUTOFMEMORY;
    }
  }
  LeaveCriticalSection(&g_ops);
  return hr;
}

HRESULT WINAPI HcsGetOperationResult(HCS_OPERATION operationHandle, PWSTR *resultDocument) {
  return op_result(operationHandle, NULL, resultDocument);
}
HRESULT WINAPI HcsGetOperationResultAndProcessInfo(HCS_OPERATION operationHandle,
                                                   hcs_process_information *processInformation,
                                                   PWSTR *resultDocument) {
  return op_result(operationHandle, processInformation, resultDocument);
}
/* Every operation has completed by the time its call returned: there is nothing to wait for. */
HRESULT WINAPI HcsWaitForOperationResult(HCS_OPERATION operationHandle, DWORD timeoutMs, PWSTR *resultDocument) {
  (void)timeoutMs;
  return op_result(operationHandle, NULL, resultDocument);
}
HRESULT WINAPI HcsWaitForOperationResultAndProcessInfo(HCS_OPERATION operationHandle, DWORD timeoutMs,
                                                       hcs_process_information *processInformation,
                                                       PWSTR *resultDocument) {
  (void)timeoutMs;
  return op_result(operationHandle, processInformation, resultDocument);
}

/* Documented: "not currently implemented and will always return an E_NOTIMPL HRESULT value". */
HRESULT WINAPI HcsCancelOperation(HCS_OPERATION operationHandle) {
  (void)operationHandle;
  return HN_E_NOTIMPL;
}
HRESULT WINAPI HcsGetOperationProperties(HCS_OPERATION operationHandle, PCWSTR options, PWSTR *resultDocument) {
  (void)operationHandle;
  (void)options;
  hn_out_null(resultDocument);
  return not_simulated();
}
HRESULT WINAPI HcsAddResourceToOperation(HCS_OPERATION operationHandle, DWORD type, PCWSTR uri, HANDLE handle) {
  (void)operationHandle;
  (void)type;
  (void)uri;
  (void)handle;
  return not_simulated();
}

/* Claim an unused operation for a call of `type` on `system`. */
static HRESULT op_start(HCS_OPERATION h, int type, HCS_SYSTEM system) {
  EnterCriticalSection(&g_ops);
  operation *op = op_of(h);
  HRESULT hr = HN_E_HANDLE;
  if (op && op->type != OP_NONE) hr = HCS_E_OPERATION_ALREADY_STARTED;
  if (op && op->type == OP_NONE) {
    op->type = type;
    op->system = system;
    hr = S_OK;
  }
  LeaveCriticalSection(&g_ops);
  return hr;
}

/*
 * Complete an operation with the reply of its flat call (`keep_doc`: whether a successful result
 * is the operation's document) and run its completion callback. Returns the reply's HRESULT in
 * computecore's spelling. Frees r.
 */
static HRESULT op_complete(HCS_OPERATION h, hn_reply *r, int keep_doc, HCS_SYSTEM system) {
  HRESULT hr = r->hr;
  char *doc = NULL;
  if (hr == S_OK) {
    if (keep_doc && !hn_json_is_null(r->result)) {
      doc = malloc(r->result.n + 1);
      if (doc) {
        memcpy(doc, r->result.p, r->result.n);
        doc[r->result.n] = '\0';
      } else {
        hr = HN_E_OUTOFMEMORY;
      }
    }
  } else if (r->reached && !hn_is_transport_failure(hr)) {
    hr = hn_hcs_spell(hr, 0);
    PWSTR wide = NULL;
    hn_out_hcs_result(&wide, hr, r->message);
    doc = wide ? hn_utf8_from_wide(wide) : NULL;
    CoTaskMemFree(wide);
  }
  hn_reply_free(r);
  HCS_OPERATION_COMPLETION callback = NULL;
  void *context = NULL;
  EnterCriticalSection(&g_ops);
  operation *op = op_of(h);
  if (op) {
    op->done = 1;
    op->hr = hr;
    op->doc = doc;
    if (system) op->system = system;
    callback = op->callback;
    context = op->context;
    doc = NULL;
  }
  LeaveCriticalSection(&g_ops);
  free(doc); /* the operation was closed meanwhile */
  if (callback) callback(h, context);
  return hr;
}

/* ───────────────────────── compute systems ───────────────────────── */

HRESULT WINAPI HcsEnumerateComputeSystems(PCWSTR query, HCS_OPERATION operationHandle) {
  HRESULT hr = op_start(operationHandle, OP_ENUMERATE, NULL);
  if (hr != S_OK) return hr;
  hn_reply r;
  hn_call_wstrs("HcsEnumerateComputeSystems", &r, 1, query);
  int reached = r.reached;
  hr = op_complete(operationHandle, &r, 1, NULL);
  return reached ? S_OK : hr;
}

/* The security descriptor is reserved (must be NULL) and not modelled. */
HRESULT WINAPI HcsCreateComputeSystem(PCWSTR id, PCWSTR configuration, HCS_OPERATION operationHandle,
                                      const void *securityDescriptor, HCS_SYSTEM *computeSystem) {
  (void)securityDescriptor;
  if (!computeSystem) return HN_E_POINTER;
  *computeSystem = NULL;
  HRESULT hr = op_start(operationHandle, OP_CREATE, NULL);
  if (hr != S_OK) return hr;
  hn_reply r;
  hn_call_wstrs("HcsCreateComputeSystem", &r, 2, id, configuration);
  HCS_SYSTEM h = r.hr == S_OK ? hn_hcs_handle_for(r.result, id) : NULL;
  if (r.hr == S_OK && !h) r.hr = HN_E_OUTOFMEMORY;
  /* the create's result is the new system, not a document (HcsCreateComputeSystem reference) */
  hr = op_complete(operationHandle, &r, 0, h);
  *computeSystem = h;
  return hr;
}

HRESULT WINAPI HcsOpenComputeSystem(PCWSTR id, DWORD requestedAccess, HCS_SYSTEM *computeSystem) {
  (void)requestedAccess;
  if (!computeSystem) return HN_E_POINTER;
  *computeSystem = NULL;
  return hn_hcs_open(id, computeSystem, 0, NULL);
}

static void drop_watch(void *payload) {
  hn_watch_remove(payload);
}

/* Void, as computecore has it: a bad handle is ignored. */
void WINAPI HcsCloseComputeSystem(HCS_SYSTEM computeSystem) {
  hn_hcs_close(computeSystem, drop_watch);
}

/* A lifecycle step, Modify or GetProperties on the system a handle names, through an operation. */
static HRESULT on_system(const char *method, int type, HCS_SYSTEM system, HCS_OPERATION operationHandle,
                         PCWSTR text, const char *exit_type) {
  char *id;
  if (!hn_handle_get(system, HN_KIND_SYSTEM, &id, NULL)) return HN_E_HANDLE;
  HRESULT hr = op_start(operationHandle, type, system);
  if (hr != S_OK) {
    free(id);
    return hr;
  }
  hn_reply r;
  hn_call_id(method, id, 1, text, &r);
  int reached = r.reached;
  hr = op_complete(operationHandle, &r, type == OP_GET_PROPERTIES, NULL);
  if (hr == S_OK && exit_type) hn_hcs_exited(id, exit_type);
  free(id);
  return reached ? S_OK : hr;
}

HRESULT WINAPI HcsStartComputeSystem(HCS_SYSTEM computeSystem, HCS_OPERATION operationHandle, PCWSTR options) {
  return on_system("HcsStartComputeSystem", OP_START, computeSystem, operationHandle, options, NULL);
}
HRESULT WINAPI HcsShutDownComputeSystem(HCS_SYSTEM computeSystem, HCS_OPERATION operationHandle, PCWSTR options) {
  return on_system("HcsShutdownComputeSystem", OP_SHUTDOWN, computeSystem, operationHandle, options,
                   "GracefulExit");
}
HRESULT WINAPI HcsTerminateComputeSystem(HCS_SYSTEM computeSystem, HCS_OPERATION operationHandle, PCWSTR options) {
  return on_system("HcsTerminateComputeSystem", OP_TERMINATE, computeSystem, operationHandle, options,
                   "ForcedExit");
}
HRESULT WINAPI HcsPauseComputeSystem(HCS_SYSTEM computeSystem, HCS_OPERATION operationHandle, PCWSTR options) {
  return on_system("HcsPauseComputeSystem", OP_PAUSE, computeSystem, operationHandle, options, NULL);
}
HRESULT WINAPI HcsResumeComputeSystem(HCS_SYSTEM computeSystem, HCS_OPERATION operationHandle, PCWSTR options) {
  return on_system("HcsResumeComputeSystem", OP_RESUME, computeSystem, operationHandle, options, NULL);
}
HRESULT WINAPI HcsGetComputeSystemProperties(HCS_SYSTEM computeSystem, HCS_OPERATION operationHandle,
                                             PCWSTR propertyQuery) {
  return on_system("HcsGetComputeSystemProperties", OP_GET_PROPERTIES, computeSystem, operationHandle,
                   propertyQuery, NULL);
}
/* The identity token is not modelled. */
HRESULT WINAPI HcsModifyComputeSystem(HCS_SYSTEM computeSystem, HCS_OPERATION operationHandle, PCWSTR configuration,
                                      HANDLE identity) {
  (void)identity;
  return on_system("HcsModifyComputeSystem", OP_MODIFY, computeSystem, operationHandle, configuration, NULL);
}

/*
 * The event callback of a system handle (one per handle; NULL removes it). It receives
 * HcsEventSystemExited after a Shutdown or Terminate made through this DLL (common/notify.c);
 * the options (operation callbacks, live-migration events) select events that never come here.
 */
HRESULT WINAPI HcsSetComputeSystemCallback(HCS_SYSTEM computeSystem, DWORD callbackOptions, void *context,
                                           void *callback) {
  (void)callbackOptions;
  char *id;
  if (!hn_handle_get(computeSystem, HN_KIND_SYSTEM, &id, NULL)) return HN_E_HANDLE;
  hn_watch *w = NULL;
  if (callback) {
    w = hn_watch_add(id, HN_WATCH_COMPUTECORE, callback, context);
    if (!w) {
      free(id);
      return HN_E_OUTOFMEMORY;
    }
  }
  free(id);
  void *old = NULL;
  if (!hn_handle_swap(computeSystem, HN_KIND_SYSTEM, w, &old)) {
    hn_watch_remove(w); /* closed meanwhile */
    return HN_E_HANDLE;
  }
  hn_watch_remove(old);
  return S_OK;
}

/* ───────────────────────── not simulated ───────────────────────── */

HRESULT WINAPI HcsWaitForComputeSystemExit(HCS_SYSTEM computeSystem, DWORD timeoutMs, PWSTR *result) {
  (void)computeSystem;
  (void)timeoutMs;
  hn_out_null(result);
  return not_simulated();
}
HRESULT WINAPI HcsEnumerateComputeSystemsInNamespace(PCWSTR idNamespace, PCWSTR query,
                                                     HCS_OPERATION operationHandle) {
  (void)idNamespace;
  (void)query;
  (void)operationHandle;
  return not_simulated();
}
HRESULT WINAPI HcsCreateComputeSystemInNamespace(PCWSTR idNamespace, PCWSTR id, PCWSTR configuration,
                                                 HCS_OPERATION operationHandle, const void *options,
                                                 HCS_SYSTEM *computeSystem) {
  (void)idNamespace;
  (void)id;
  (void)configuration;
  (void)operationHandle;
  (void)options;
  if (computeSystem) *computeSystem = NULL;
  return not_simulated();
}
HRESULT WINAPI HcsOpenComputeSystemInNamespace(PCWSTR idNamespace, PCWSTR id, DWORD requestedAccess,
                                               HCS_SYSTEM *computeSystem) {
  (void)idNamespace;
  (void)id;
  (void)requestedAccess;
  if (computeSystem) *computeSystem = NULL;
  return not_simulated();
}

/* Save, crash and the live-migration steps: (system, operation, options), none modelled. */
#define NOT_SIMULATED_STEP(name)                                                                    \
  HRESULT WINAPI name(HCS_SYSTEM computeSystem, HCS_OPERATION operationHandle, PCWSTR options) {   \
    (void)computeSystem;                                                                            \
    (void)operationHandle;                                                                          \
    (void)options;                                                                                  \
    return not_simulated();                                                                         \
  }
NOT_SIMULATED_STEP(HcsSaveComputeSystem)
NOT_SIMULATED_STEP(HcsCrashComputeSystem)
NOT_SIMULATED_STEP(HcsInitializeLiveMigrationOnSource)
NOT_SIMULATED_STEP(HcsStartLiveMigrationOnSource)
NOT_SIMULATED_STEP(HcsStartLiveMigrationTransfer)
NOT_SIMULATED_STEP(HcsFinalizeLiveMigration)
NOT_SIMULATED_STEP(HcsCancelLiveMigration)

/* Processes: the simulator runs none in its compute systems. */
HRESULT WINAPI HcsCreateProcess(HCS_SYSTEM computeSystem, PCWSTR processParameters, HCS_OPERATION operationHandle,
                                const void *securityDescriptor, HCS_PROCESS *process) {
  (void)computeSystem;
  (void)processParameters;
  (void)operationHandle;
  (void)securityDescriptor;
  if (process) *process = NULL;
  return not_simulated();
}
HRESULT WINAPI HcsOpenProcess(HCS_SYSTEM computeSystem, DWORD processId, DWORD requestedAccess,
                              HCS_PROCESS *process) {
  (void)computeSystem;
  (void)processId;
  (void)requestedAccess;
  if (process) *process = NULL;
  return not_simulated();
}
void WINAPI HcsCloseProcess(HCS_PROCESS process) {
  (void)process;
}
#define NOT_SIMULATED_PROCESS_STEP(name)                                                             \
  HRESULT WINAPI name(HCS_PROCESS process, HCS_OPERATION operationHandle, PCWSTR text) {             \
    (void)process;                                                                                   \
    (void)operationHandle;                                                                           \
    (void)text;                                                                                      \
    return not_simulated();                                                                          \
  }
NOT_SIMULATED_PROCESS_STEP(HcsTerminateProcess)
NOT_SIMULATED_PROCESS_STEP(HcsSignalProcess)
NOT_SIMULATED_PROCESS_STEP(HcsGetProcessProperties)
NOT_SIMULATED_PROCESS_STEP(HcsModifyProcess)
HRESULT WINAPI HcsGetProcessInfo(HCS_PROCESS process, HCS_OPERATION operationHandle) {
  (void)process;
  (void)operationHandle;
  return not_simulated();
}
HRESULT WINAPI HcsSetProcessCallback(HCS_PROCESS process, DWORD callbackOptions, void *context, void *callback) {
  (void)process;
  (void)callbackOptions;
  (void)context;
  (void)callback;
  return not_simulated();
}
HRESULT WINAPI HcsWaitForProcessExit(HCS_PROCESS process, DWORD timeoutMs, PWSTR *result) {
  (void)process;
  (void)timeoutMs;
  hn_out_null(result);
  return not_simulated();
}

/* The service, saved state, VM file access and error reporting. */
HRESULT WINAPI HcsGetServiceProperties(PCWSTR propertyQuery, PWSTR *result) {
  (void)propertyQuery;
  hn_out_null(result);
  return not_simulated();
}
HRESULT WINAPI HcsModifyServiceSettings(PCWSTR settings, PWSTR *result) {
  (void)settings;
  hn_out_null(result);
  return not_simulated();
}
HRESULT WINAPI HcsSubmitWerReport(PCWSTR settings) {
  (void)settings;
  return not_simulated();
}
HRESULT WINAPI HcsGetProcessorCompatibilityFromSavedState(PCWSTR runtimeFileName, PWSTR *processorFeaturesString) {
  (void)runtimeFileName;
  hn_out_null(processorFeaturesString);
  return not_simulated();
}
#define NOT_SIMULATED_FILE(name)                                                                     \
  HRESULT WINAPI name(PCWSTR path) {                                                                 \
    (void)path;                                                                                      \
    return not_simulated();                                                                          \
  }
NOT_SIMULATED_FILE(HcsCreateEmptyGuestStateFile)
NOT_SIMULATED_FILE(HcsCreateEmptyRuntimeStateFile)
NOT_SIMULATED_FILE(HcsGrantVmGroupAccess)
NOT_SIMULATED_FILE(HcsRevokeVmGroupAccess)
HRESULT WINAPI HcsGrantVmAccess(PCWSTR vmId, PCWSTR filePath) {
  (void)vmId;
  (void)filePath;
  return not_simulated();
}
HRESULT WINAPI HcsRevokeVmAccess(PCWSTR vmId, PCWSTR filePath) {
  (void)vmId;
  (void)filePath;
  return not_simulated();
}
