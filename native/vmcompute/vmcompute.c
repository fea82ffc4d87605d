/*
 * vmcompute.dll for hnsim: HNS v1 (`HNSCall`, reference hns-hcs.md §0.3) and the HCS v1 API
 * (reference hcs-lifecycle.md §0) answered by the simulator's flat API. The exports and their
 * signatures are those hcsshim binds: microsoft/hcsshim 7c9ff7f48 (v0.15.0-rc.4+4, August 2026),
 * internal/vmcompute/vmcompute.go //sys lines and internal/vmcompute/zsyscall_windows.go;
 * HNSCall from hcn/zsyscall_windows.go and internal/hns/zsyscall_windows.go.
 *
 * The v1 HCS functions are synchronous here: the simulator carries a call out before it answers,
 * so nothing returns ERROR_VMCOMPUTE_OPERATION_PENDING and hcsshim's processAsyncHcsResult has
 * nothing to wait for. A failure comes back as its HRESULT, in vmcompute's spelling (0xC037… for
 * the codes that have it), with a ResultError document `{"Error","ErrorMessage"}` in `result`.
 *
 * Functions the simulator has no model for (processes, save, service settings and properties)
 * return E_NOTIMPL (0x80004001): the code HCS documents for a function it does not implement
 * (HcsCancelOperation: "not currently implemented and will always return an E_NOTIMPL") and the
 * one hcn.IsNotImplemented keys on. The export exists, so hcsshim's LazyProc.Find succeeds and the
 * caller sees the HRESULT, never a panic or a missing procedure.
 */
#include "hnsim.h"

#include <stdlib.h>
#include <string.h>

typedef void *HCS_SYSTEM, *HCS_PROCESS, *HCS_CALLBACK;

/* HCS_PROCESS_INFORMATION (hcsshim's HcsProcessInformation). */
typedef struct hcs_process_information {
  DWORD ProcessId;
  DWORD Reserved;
  HANDLE StdInput;
  HANDLE StdOutput;
  HANDLE StdError;
} hcs_process_information;

const unsigned hn_handle_tag = 2;

void hn_module_attach(void) {}
void hn_module_detach(int unloading) {
  (void)unloading;
}

/* E_NOTIMPL with a ResultError naming the function. */
static HRESULT not_simulated(const char *fn, PWSTR *result) {
  hn_buf b;
  hn_buf_init(&b);
  hn_buf_cstr(&b, "hnsim does not simulate ");
  hn_buf_cstr(&b, fn);
  hn_hcs_local_result(result, HN_E_NOTIMPL, b.failed ? NULL : b.data);
  hn_buf_free(&b);
  return HN_E_NOTIMPL;
}

static HRESULT bad_handle(PWSTR *result) {
  hn_hcs_local_result(result, HN_E_HANDLE, NULL);
  return HN_E_HANDLE;
}

/* ───────────────────────── HNS v1 ───────────────────────── */

/*
 * `HNSCall(method, path, request, &response)`: the response document {"Success","Error","Output"}
 * as the simulator serialises it. A v1 failure is a successful call whose response says
 * Success:false; the call itself fails only when malformed or when HNS is unreachable, and then
 * there is no response.
 */
HRESULT WINAPI HNSCall(PCWSTR Method, PCWSTR Path, PCWSTR Object, PWSTR *Response) {
  hn_out_null(Response);
  if (!Response) return HN_E_POINTER;
  hn_reply r;
  hn_call_wstrs("HNSCall", &r, 3, Method, Path, Object);
  HRESULT hr = r.hr;
  if (hr == S_OK) hr = hn_out_span(Response, r.result);
  hn_reply_free(&r);
  return hr;
}

/* ───────────────────────── compute systems ───────────────────────── */

HRESULT WINAPI HcsEnumerateComputeSystems(PCWSTR Query, PWSTR *ComputeSystems, PWSTR *Result) {
  hn_out_null(ComputeSystems);
  hn_out_null(Result);
  if (!ComputeSystems) return HN_E_POINTER;
  hn_reply r;
  hn_call_wstrs("HcsEnumerateComputeSystems", &r, 1, Query);
  return hn_hcs_finish(&r, 1, ComputeSystems, Result);
}

/* The identity token is not modelled: systems are created with the caller's rights. */
HRESULT WINAPI HcsCreateComputeSystem(PCWSTR Id, PCWSTR Configuration, HANDLE Identity, HCS_SYSTEM *ComputeSystem,
                                      PWSTR *Result) {
  (void)Identity;
  hn_out_null(Result);
  if (!ComputeSystem) return HN_E_POINTER;
  *ComputeSystem = NULL;
  hn_reply r;
  hn_call_wstrs("HcsCreateComputeSystem", &r, 2, Id, Configuration);
  if (r.hr == S_OK) *ComputeSystem = hn_hcs_handle_for(r.result, Id);
  if (r.hr == S_OK && !*ComputeSystem) r.hr = HN_E_OUTOFMEMORY;
  return hn_hcs_finish(&r, 1, NULL, Result);
}

HRESULT WINAPI HcsOpenComputeSystem(PCWSTR Id, HCS_SYSTEM *ComputeSystem, PWSTR *Result) {
  hn_out_null(Result);
  if (!ComputeSystem) return HN_E_POINTER;
  *ComputeSystem = NULL;
  return hn_hcs_open(Id, ComputeSystem, 1, Result);
}

HRESULT WINAPI HcsCloseComputeSystem(HCS_SYSTEM ComputeSystem) {
  return hn_hcs_close(ComputeSystem, NULL) ? S_OK : HN_E_HANDLE;
}

/* A lifecycle step or Modify: the flat function of the same name on the system the handle names. */
static HRESULT on_system(const char *method, HCS_SYSTEM h, PCWSTR text, PWSTR *doc, PWSTR *result,
                         const char *exit_type) {
  hn_out_null(doc);
  hn_out_null(result);
  char *id;
  if (!hn_handle_get(h, HN_KIND_SYSTEM, &id, NULL)) return bad_handle(result);
  hn_reply r;
  hn_call_id(method, id, 1, text, &r);
  HRESULT hr = hn_hcs_finish(&r, 1, doc, result);
  if (hr == S_OK && exit_type) hn_hcs_exited(id, exit_type);
  free(id);
  return hr;
}

HRESULT WINAPI HcsStartComputeSystem(HCS_SYSTEM ComputeSystem, PCWSTR Options, PWSTR *Result) {
  return on_system("HcsStartComputeSystem", ComputeSystem, Options, NULL, Result, NULL);
}
HRESULT WINAPI HcsShutdownComputeSystem(HCS_SYSTEM ComputeSystem, PCWSTR Options, PWSTR *Result) {
  return on_system("HcsShutdownComputeSystem", ComputeSystem, Options, NULL, Result, "GracefulExit");
}
HRESULT WINAPI HcsTerminateComputeSystem(HCS_SYSTEM ComputeSystem, PCWSTR Options, PWSTR *Result) {
  return on_system("HcsTerminateComputeSystem", ComputeSystem, Options, NULL, Result, "ForcedExit");
}
HRESULT WINAPI HcsPauseComputeSystem(HCS_SYSTEM ComputeSystem, PCWSTR Options, PWSTR *Result) {
  return on_system("HcsPauseComputeSystem", ComputeSystem, Options, NULL, Result, NULL);
}
HRESULT WINAPI HcsResumeComputeSystem(HCS_SYSTEM ComputeSystem, PCWSTR Options, PWSTR *Result) {
  return on_system("HcsResumeComputeSystem", ComputeSystem, Options, NULL, Result, NULL);
}
HRESULT WINAPI HcsGetComputeSystemProperties(HCS_SYSTEM ComputeSystem, PCWSTR PropertyQuery, PWSTR *Properties,
                                             PWSTR *Result) {
  if (!Properties) {
    hn_out_null(Result);
    return HN_E_POINTER;
  }
  return on_system("HcsGetComputeSystemProperties", ComputeSystem, PropertyQuery, Properties, Result, NULL);
}
HRESULT WINAPI HcsModifyComputeSystem(HCS_SYSTEM ComputeSystem, PCWSTR Configuration, PWSTR *Result) {
  return on_system("HcsModifyComputeSystem", ComputeSystem, Configuration, NULL, Result, NULL);
}
HRESULT WINAPI HcsSaveComputeSystem(HCS_SYSTEM ComputeSystem, PCWSTR Options, PWSTR *Result) {
  (void)ComputeSystem;
  (void)Options;
  hn_out_null(Result);
  return not_simulated("HcsSaveComputeSystem", Result);
}

/*
 * Callbacks: kept per registration and called with SystemExited (0x1) after a Shutdown or
 * Terminate made through this DLL (common/notify.c). hcsshim's notificationWatcher looks its
 * context up in a map, so the context is passed through untouched.
 */
HRESULT WINAPI HcsRegisterComputeSystemCallback(HCS_SYSTEM ComputeSystem, void *Callback, void *Context,
                                                HCS_CALLBACK *CallbackHandle) {
  if (!CallbackHandle) return HN_E_POINTER;
  *CallbackHandle = NULL;
  char *id;
  if (!hn_handle_get(ComputeSystem, HN_KIND_SYSTEM, &id, NULL)) return HN_E_HANDLE;
  HRESULT hr = HN_E_OUTOFMEMORY;
  hn_watch *w = Callback ? hn_watch_add(id, HN_WATCH_VMCOMPUTE, Callback, Context) : NULL;
  if (!Callback) hr = HN_E_INVALIDARG;
  if (w) {
    *CallbackHandle = hn_handle_new(HN_KIND_SYSTEM_CALLBACK, id, w);
    if (*CallbackHandle)
      hr = S_OK;
    else
      hn_watch_remove(w);
  }
  free(id);
  return hr;
}

HRESULT WINAPI HcsUnregisterComputeSystemCallback(HCS_CALLBACK CallbackHandle) {
  void *w;
  if (!hn_handle_close(CallbackHandle, HN_KIND_SYSTEM_CALLBACK, &w)) return HN_E_HANDLE;
  hn_watch_remove(w);
  return S_OK;
}

/* ───────────────────────── not simulated: service, processes ───────────────────────── */

HRESULT WINAPI HcsModifyServiceSettings(PCWSTR Settings, PWSTR *Result) {
  (void)Settings;
  hn_out_null(Result);
  return not_simulated("HcsModifyServiceSettings", Result);
}
HRESULT WINAPI HcsGetServiceProperties(PCWSTR PropertyQuery, PWSTR *Properties, PWSTR *Result) {
  (void)PropertyQuery;
  hn_out_null(Properties);
  hn_out_null(Result);
  return not_simulated("HcsGetServiceProperties", Result);
}

/*
 * The simulator runs no processes in compute systems: every process function is E_NOTIMPL, whatever
 * its arguments (no process handle can exist to be checked).
 */
HRESULT WINAPI HcsCreateProcess(HCS_SYSTEM ComputeSystem, PCWSTR ProcessParameters,
                                hcs_process_information *ProcessInformation, HCS_PROCESS *Process, PWSTR *Result) {
  (void)ComputeSystem;
  (void)ProcessParameters;
  (void)ProcessInformation;
  if (Process) *Process = NULL;
  hn_out_null(Result);
  return not_simulated("HcsCreateProcess", Result);
}
HRESULT WINAPI HcsOpenProcess(HCS_SYSTEM ComputeSystem, DWORD ProcessId, HCS_PROCESS *Process, PWSTR *Result) {
  (void)ComputeSystem;
  (void)ProcessId;
  if (Process) *Process = NULL;
  hn_out_null(Result);
  return not_simulated("HcsOpenProcess", Result);
}
HRESULT WINAPI HcsCloseProcess(HCS_PROCESS Process) {
  (void)Process;
  return HN_E_NOTIMPL;
}
HRESULT WINAPI HcsTerminateProcess(HCS_PROCESS Process, PWSTR *Result) {
  (void)Process;
  hn_out_null(Result);
  return not_simulated("HcsTerminateProcess", Result);
}
HRESULT WINAPI HcsSignalProcess(HCS_PROCESS Process, PCWSTR Options, PWSTR *Result) {
  (void)Process;
  (void)Options;
  hn_out_null(Result);
  return not_simulated("HcsSignalProcess", Result);
}
HRESULT WINAPI HcsGetProcessInfo(HCS_PROCESS Process, hcs_process_information *ProcessInformation, PWSTR *Result) {
  (void)Process;
  (void)ProcessInformation;
  hn_out_null(Result);
  return not_simulated("HcsGetProcessInfo", Result);
}
HRESULT WINAPI HcsGetProcessProperties(HCS_PROCESS Process, PWSTR *ProcessProperties, PWSTR *Result) {
  (void)Process;
  hn_out_null(ProcessProperties);
  hn_out_null(Result);
  return not_simulated("HcsGetProcessProperties", Result);
}
HRESULT WINAPI HcsModifyProcess(HCS_PROCESS Process, PCWSTR Settings, PWSTR *Result) {
  (void)Process;
  (void)Settings;
  hn_out_null(Result);
  return not_simulated("HcsModifyProcess", Result);
}
HRESULT WINAPI HcsRegisterProcessCallback(HCS_PROCESS Process, void *Callback, void *Context,
                                          HCS_CALLBACK *CallbackHandle) {
  (void)Process;
  (void)Callback;
  (void)Context;
  if (CallbackHandle) *CallbackHandle = NULL;
  return HN_E_NOTIMPL;
}
HRESULT WINAPI HcsUnregisterProcessCallback(HCS_CALLBACK CallbackHandle) {
  (void)CallbackHandle;
  return HN_E_NOTIMPL;
}
