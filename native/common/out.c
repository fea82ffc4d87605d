/*
 * What a call hands back to its caller: UTF-16 strings from the COM task allocator, which hcsshim
 * frees with CoTaskMemFree (internal/interop.ConvertAndFreeCoTaskMemString). The result documents
 * are the simulator's JSON text converted as it is, so a Go client unmarshals exactly what the
 * typed client sees.
 */
#include "hnsim.h"

#include <stdlib.h>
#include <string.h>

HRESULT hn_out_span(PWSTR *out, hn_span s) {
  if (!out) return S_OK;
  *out = hn_cotask_wide(s.p, s.n);
  return *out ? S_OK : HN_E_OUTOFMEMORY;
}

void hn_out_null(PWSTR *out) {
  if (out) *out = NULL;
}

/*
 * The ErrorRecord HNS writes beside a failing HRESULT, as the simulator sent it. A call that never
 * reached the service has none (src/api/faults.ts TRANSPORT_FAILURES: RPC_S_SERVER_UNAVAILABLE and
 * its kin come with no ErrorRecord), and then hcsshim's message ends after the HRESULT, as the
 * typed client's does.
 */
void hn_out_record(PWSTR *record, const hn_reply *r) {
  if (!record) return;
  *record = NULL;
  if (r->hr == S_OK || !r->reached || r->record.n == 0) return;
  if (hn_is_transport_failure(r->hr)) return;
  *record = hn_cotask_wide(r->record.p, r->record.n);
}

int hn_is_transport_failure(HRESULT hr) {
  return hr == HN_RPC_S_SERVER_UNAVAILABLE || hr == HN_RPC_S_CALL_FAILED || hr == HN_RPC_S_UNKNOWN_IF ||
         hr == HN_EPT_S_NOT_REGISTERED;
}

void hn_out_hcs_result(PWSTR *result, HRESULT hr, const char *message) {
  if (!result) return;
  *result = NULL;
  hn_buf b;
  hn_buf_init(&b);
  hn_buf_cstr(&b, "{\"Error\":");
  hn_buf_int(&b, (long long)(LONG)hr);
  hn_buf_cstr(&b, ",\"ErrorMessage\":");
  hn_buf_json_utf8(&b, message ? message : "", message ? strlen(message) : 0);
  hn_buf_cstr(&b, "}");
  if (!b.failed) *result = hn_cotask_wide(b.data, b.len);
  hn_buf_free(&b);
}
