/*
 * What vmcompute.dll and computecore.dll share: compute-system handles over the flat Hcs*
 * functions (docs/api.md "Compute systems"), the two error spellings, the close of the last handle,
 * and the exit notification a Shutdown or Terminate made through the DLL causes.
 */
#include "hnsim.h"

#include <stdlib.h>

/*
 * The two HCS DLLs spell the same failure differently: vmcompute's ERROR_VMCOMPUTE_X is
 * computecore's HCS_E_X | 0x40000000 for the codes winerror.h has in both forms, 0x…0100–0x…0113
 * (reference hcs-lifecycle.md §0). The simulator answers in its host's spelling (`hcs.api`), so
 * each DLL puts the code into its own; codes with one form only (HCS_E_OPERATION_*, 0x8037011F,
 * HNS and Win32 codes) pass unchanged. 0xC0370103 (pending) and 0xC0370104 have no HCS_E_ twin.
 */
HRESULT hn_hcs_spell(HRESULT hr, int vmcompute) {
  unsigned long v = (unsigned long)hr;
  if (vmcompute && v >= 0x80370100ul && v <= 0x80370113ul) return (HRESULT)(v | 0x40000000ul);
  if (!vmcompute && v >= 0xC0370100ul && v <= 0xC0370113ul && v != 0xC0370103ul && v != 0xC0370104ul)
    return (HRESULT)(v & ~0x40000000ul);
  return hr;
}

/* The text Windows has for the codes the DLLs produce without asking the simulator. */
static const char *local_message(HRESULT hr) {
  switch ((unsigned long)hr) {
  case 0x80004001ul: return "Not implemented";
  case 0x80004003ul: return "Invalid pointer";
  case 0x80070006ul: return "The handle is invalid.";
  case 0x8007000Eul: return "Not enough memory resources are available to complete this operation.";
  case 0x80070057ul: return "The parameter is incorrect.";
  default: return "";
  }
}

void hn_hcs_local_result(PWSTR *result, HRESULT hr, const char *detail) {
  const char *text = local_message(hr);
  if (!detail) {
    hn_out_hcs_result(result, hr, text);
    return;
  }
  hn_buf b;
  hn_buf_init(&b);
  hn_buf_cstr(&b, text);
  hn_buf_cstr(&b, " (");
  hn_buf_cstr(&b, detail);
  hn_buf_cstr(&b, ")");
  hn_out_hcs_result(result, hr, b.failed ? text : b.data);
  hn_buf_free(&b);
}

HRESULT hn_hcs_finish(hn_reply *r, int vmcompute, PWSTR *doc, PWSTR *result) {
  HRESULT hr = r->hr;
  hn_out_null(result);
  if (hr == S_OK) {
    if (doc) hr = hn_out_span(doc, r->result);
  } else if (r->reached && !hn_is_transport_failure(hr)) {
    hr = hn_hcs_spell(hr, vmcompute);
    hn_out_hcs_result(result, hr, r->message);
  }
  hn_reply_free(r);
  return hr;
}

HANDLE hn_hcs_handle_for(hn_span properties, PCWSTR id) {
  hn_span v;
  /* the ID as the system has it (IDs compare without case): what the properties say, else the caller's */
  char *text = hn_json_member(properties, "Id", &v) ? hn_json_string(v) : hn_utf8_from_wide(id ? id : L"");
  HANDLE h = text ? hn_handle_new(HN_KIND_SYSTEM, text, NULL) : NULL;
  free(text);
  return h;
}

HRESULT hn_hcs_open(PCWSTR id, HANDLE *out, int vmcompute, PWSTR *result) {
  char *text = hn_utf8_from_wide(id ? id : L"");
  if (!text) return HN_E_OUTOFMEMORY;
  hn_reply r;
  /* the existence check the typed HcsClient.openComputeSystem makes */
  hn_call_id("HcsGetComputeSystemProperties", text, 1, L"{}", &r);
  free(text);
  if (r.hr == S_OK) {
    *out = hn_hcs_handle_for(r.result, id);
    if (!*out) r.hr = HN_E_OUTOFMEMORY;
  }
  return hn_hcs_finish(&r, vmcompute, NULL, result);
}

/*
 * Close one handle. The flat HcsCloseComputeSystem is the close of the last handle (a stopped
 * system's ID goes, ShouldTerminateOnLastHandleClosed applies), so it is called when this process
 * closes its last handle to the system; what it answers changes nothing for the caller, whose
 * handle is closed either way.
 */
int hn_hcs_close(HANDLE h, void (*drop)(void *payload)) {
  char *id;
  void *payload = NULL;
  if (!hn_handle_get(h, HN_KIND_SYSTEM, &id, NULL)) return 0;
  if (!hn_handle_close(h, HN_KIND_SYSTEM, &payload)) {
    free(id);
    return 0;
  }
  /* the callbacks go first: HCS sends no notification for a close, even one that terminates */
  if (drop) drop(payload);
  if (hn_handle_count(HN_KIND_SYSTEM, id) == 0) {
    hn_reply r;
    hn_call_id("HcsCloseComputeSystem", id, 0, NULL, &r);
    hn_reply_free(&r);
  }
  free(id);
  return 1;
}

void hn_hcs_exited(const char *id, const char *exit_type) {
  hn_buf b;
  hn_buf_init(&b);
  hn_buf_cstr(&b, "{\"Status\":0,\"ExitType\":\"");
  hn_buf_cstr(&b, exit_type);
  hn_buf_cstr(&b, "\"}");
  /* SystemExited is 0x1 in both vmcompute's HCS_NOTIFICATIONS and computecore's HCS_EVENT_TYPE */
  if (!b.failed) hn_watch_exited(id, 0x1, b.data);
  hn_buf_free(&b);
}
