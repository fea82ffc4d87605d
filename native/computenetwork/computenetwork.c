/*
 * computenetwork.dll for hnsim: the HCN v2 API (reference hns-hcs.md §0.1) answered by the
 * simulator's flat API over JSON-RPC (docs/api.md "Flat API"). Each export has the signature
 * hcsshim binds it with: microsoft/hcsshim 7c9ff7f48 (v0.15.0-rc.4+4, August 2026),
 * hcn/hcn.go //sys lines and hcn/zsyscall_windows.go — GUIDs by pointer, UTF-16 settings and
 * queries, HCN_* handle out-parameters, an HRESULT return and the ErrorRecord out-string.
 *
 * Beyond hcsshim's list: HcnQueryEndpointStats (the flat API has it; microsoft/SDN's hns.v2.psm1
 * calls it), HcnRegisterServiceCallback / HcnUnregisterServiceCallback (documented in
 * Virtualization-Documentation, hcn/Reference), and HcnOpenService / HcnCloseService, which
 * hcsshim bound until v0.10.0 (removed in 58f7ef4c7, March 2021) and which older vendored copies
 * still bind.
 *
 * The flat API is handle-free and folds Open into Modify and Query, so a handle here is the
 * object's ID, and Open asks the simulator whether the object exists (a Query with the default
 * query, the call the typed client's lookups make): the not-found HRESULT and ErrorRecord are the
 * ones HNS gives (HCN_E_NETWORK_NOT_FOUND, HCN_E_ENDPOINT_NOT_FOUND, ERROR_NOT_FOUND).
 */
#include "hnsim.h"

#include <stdlib.h>
#include <string.h>

typedef void *HCN_NETWORK, *HCN_ENDPOINT, *HCN_NAMESPACE, *HCN_LOADBALANCER, *HCN_ROUTE, *HCN_SERVICE,
    *HCN_CALLBACK;

/* The flat API functions one HCN object kind maps to. */
typedef struct kind_api {
  hn_kind kind;
  const char *enumerate;
  const char *create;
  const char *query;
  const char *modify;
  const char *remove;
} kind_api;

static const kind_api NETWORK = {HN_KIND_NETWORK, "HcnEnumerateNetworks", "HcnCreateNetwork",
                                 "HcnQueryNetworkProperties", "HcnModifyNetwork", "HcnDeleteNetwork"};
static const kind_api ENDPOINT = {HN_KIND_ENDPOINT, "HcnEnumerateEndpoints", "HcnCreateEndpoint",
                                  "HcnQueryEndpointProperties", "HcnModifyEndpoint", "HcnDeleteEndpoint"};
static const kind_api NAMESPACE = {HN_KIND_NAMESPACE, "HcnEnumerateNamespaces", "HcnCreateNamespace",
                                   "HcnQueryNamespaceProperties", "HcnModifyNamespace", "HcnDeleteNamespace"};
static const kind_api LOADBALANCER = {HN_KIND_LOADBALANCER, "HcnEnumerateLoadBalancers", "HcnCreateLoadBalancer",
                                      "HcnQueryLoadBalancerProperties", "HcnModifyLoadBalancer",
                                      "HcnDeleteLoadBalancer"};
static const kind_api ROUTE = {HN_KIND_ROUTE, "HcnEnumerateSdnRoutes", "HcnCreateSdnRoute",
                               "HcnQuerySdnRouteProperties", "HcnModifySdnRoute", "HcnDeleteSdnRoute"};

const unsigned hn_handle_tag = 1;

void hn_module_attach(void) {}
void hn_module_detach(int unloading) {
  (void)unloading;
}

/* Finish a call that produced no document: its HRESULT, and the ErrorRecord when it failed. */
static HRESULT finish(hn_reply *r, PWSTR *record) {
  HRESULT hr = r->hr;
  hn_out_record(record, r);
  hn_reply_free(r);
  return hr;
}

/* Finish a call whose document (query properties, enumeration) goes to *out on success. */
static HRESULT finish_doc(hn_reply *r, PWSTR *out, PWSTR *record) {
  HRESULT hr = r->hr;
  if (hr == S_OK) hr = hn_out_span(out, r->result);
  hn_out_record(record, r);
  hn_reply_free(r);
  return hr;
}

/* A handle for the object whose document `doc` is (its "ID"), or `fallback` when it has none. */
static HRESULT handle_for(hn_kind kind, hn_span doc, const char *fallback, HANDLE *out) {
  hn_span v;
  char *id = hn_json_member(doc, "ID", &v) ? hn_json_string(v) : NULL;
  *out = hn_handle_new(kind, id ? id : fallback, NULL);
  free(id);
  return *out ? S_OK : HN_E_OUTOFMEMORY;
}

static HRESULT enumerate(const kind_api *k, PCWSTR query, PWSTR *ids, PWSTR *record) {
  hn_out_null(ids);
  hn_out_null(record);
  hn_reply r;
  hn_call_wstrs(k->enumerate, &r, 1, query);
  return finish_doc(&r, ids, record);
}

/* Create (`network` is the endpoint's network: a handle for endpoints, unused otherwise). */
static HRESULT create(const kind_api *k, HANDLE network, const GUID *id, PCWSTR settings, HANDLE *out,
                      PWSTR *record) {
  hn_out_null(record);
  if (!out) return HN_E_POINTER;
  *out = NULL;
  char *network_id = NULL;
  if (k->kind == HN_KIND_ENDPOINT && network && !hn_handle_get(network, HN_KIND_NETWORK, &network_id, NULL))
    return HN_E_HANDLE;
  hn_buf p;
  hn_buf_init(&p);
  hn_buf_cstr(&p, "[");
  if (k->kind == HN_KIND_ENDPOINT) {
    if (network_id)
      hn_buf_json_utf8(&p, network_id, strlen(network_id));
    else
      hn_buf_cstr(&p, "null");
    hn_buf_cstr(&p, ",");
  }
  free(network_id);
  hn_buf_json_guid(&p, id);
  hn_buf_cstr(&p, ",");
  hn_buf_json_wstr(&p, settings);
  hn_buf_cstr(&p, "]");
  hn_reply r;
  hn_call(k->create, &p, &r);
  hn_buf_free(&p);
  /* the created object is what a default query returns: its ID is the one HNS chose */
  if (r.hr == S_OK) r.hr = handle_for(k->kind, r.result, "", out);
  return finish(&r, record);
}

static HRESULT open_object(const kind_api *k, const GUID *id, HANDLE *out, PWSTR *record) {
  hn_out_null(record);
  if (!out) return HN_E_POINTER;
  *out = NULL;
  hn_buf p;
  hn_buf_init(&p);
  hn_buf_cstr(&p, "[");
  hn_buf_json_guid(&p, id);
  hn_buf_cstr(&p, ",\"\"]");
  hn_reply r;
  hn_call(k->query, &p, &r);
  hn_buf_free(&p);
  if (r.hr == S_OK) r.hr = handle_for(k->kind, r.result, "", out);
  return finish(&r, record);
}

/* One flat call (`method`) on the object the handle names, with `text`; its document to *props if given. */
static HRESULT on_handle(const kind_api *k, const char *method, HANDLE h, PCWSTR text, PWSTR *props,
                         PWSTR *record) {
  hn_out_null(props);
  hn_out_null(record);
  char *id;
  if (!hn_handle_get(h, k->kind, &id, NULL)) return HN_E_HANDLE;
  hn_reply r;
  hn_call_id(method, id, 1, text, &r);
  free(id);
  return props ? finish_doc(&r, props, record) : finish(&r, record);
}

static HRESULT modify(const kind_api *k, HANDLE h, PCWSTR settings, PWSTR *record) {
  return on_handle(k, k->modify, h, settings, NULL, record);
}

/*
 * A query on a handle (`method`: the kind's properties query, or HcnQueryEndpointStats), its document
 * to *out. A NULL out is E_POINTER, and no ErrorRecord.
 */
static HRESULT query_props(const kind_api *k, const char *method, HANDLE h, PCWSTR q, PWSTR *out,
                           PWSTR *record) {
  if (!out) {
    hn_out_null(record);
    return HN_E_POINTER;
  }
  return on_handle(k, method, h, q, out, record);
}

static HRESULT remove_object(const kind_api *k, const GUID *id, PWSTR *record) {
  hn_out_null(record);
  hn_buf p;
  hn_buf_init(&p);
  hn_buf_cstr(&p, "[");
  hn_buf_json_guid(&p, id);
  hn_buf_cstr(&p, "]");
  hn_reply r;
  hn_call(k->remove, &p, &r);
  hn_buf_free(&p);
  return finish(&r, record);
}

/* Closing a handle only forgets it: HNS objects outlive the handles to them. */
static HRESULT close_handle(const kind_api *k, HANDLE h) {
  return hn_handle_close(h, k->kind, NULL) ? S_OK : HN_E_HANDLE;
}

/* ───────────────────────── networks ───────────────────────── */

HRESULT WINAPI HcnEnumerateNetworks(PCWSTR Query, PWSTR *Networks, PWSTR *ErrorRecord) {
  return enumerate(&NETWORK, Query, Networks, ErrorRecord);
}
HRESULT WINAPI HcnCreateNetwork(const GUID *Id, PCWSTR Settings, HCN_NETWORK *Network, PWSTR *ErrorRecord) {
  return create(&NETWORK, NULL, Id, Settings, Network, ErrorRecord);
}
HRESULT WINAPI HcnOpenNetwork(const GUID *Id, HCN_NETWORK *Network, PWSTR *ErrorRecord) {
  return open_object(&NETWORK, Id, Network, ErrorRecord);
}
HRESULT WINAPI HcnModifyNetwork(HCN_NETWORK Network, PCWSTR Settings, PWSTR *ErrorRecord) {
  return modify(&NETWORK, Network, Settings, ErrorRecord);
}
HRESULT WINAPI HcnQueryNetworkProperties(HCN_NETWORK Network, PCWSTR Query, PWSTR *Properties, PWSTR *ErrorRecord) {
  return query_props(&NETWORK, NETWORK.query, Network, Query, Properties, ErrorRecord);
}
HRESULT WINAPI HcnDeleteNetwork(const GUID *Id, PWSTR *ErrorRecord) {
  return remove_object(&NETWORK, Id, ErrorRecord);
}
HRESULT WINAPI HcnCloseNetwork(HCN_NETWORK Network) {
  return close_handle(&NETWORK, Network);
}

/* ───────────────────────── endpoints ───────────────────────── */

HRESULT WINAPI HcnEnumerateEndpoints(PCWSTR Query, PWSTR *Endpoints, PWSTR *ErrorRecord) {
  return enumerate(&ENDPOINT, Query, Endpoints, ErrorRecord);
}
HRESULT WINAPI HcnCreateEndpoint(HCN_NETWORK Network, const GUID *Id, PCWSTR Settings, HCN_ENDPOINT *Endpoint,
                                 PWSTR *ErrorRecord) {
  return create(&ENDPOINT, Network, Id, Settings, Endpoint, ErrorRecord);
}
HRESULT WINAPI HcnOpenEndpoint(const GUID *Id, HCN_ENDPOINT *Endpoint, PWSTR *ErrorRecord) {
  return open_object(&ENDPOINT, Id, Endpoint, ErrorRecord);
}
HRESULT WINAPI HcnModifyEndpoint(HCN_ENDPOINT Endpoint, PCWSTR Settings, PWSTR *ErrorRecord) {
  return modify(&ENDPOINT, Endpoint, Settings, ErrorRecord);
}
HRESULT WINAPI HcnQueryEndpointProperties(HCN_ENDPOINT Endpoint, PCWSTR Query, PWSTR *Properties,
                                          PWSTR *ErrorRecord) {
  return query_props(&ENDPOINT, ENDPOINT.query, Endpoint, Query, Properties, ErrorRecord);
}
/* The endpoint's traffic counters (flat HcnQueryEndpointStats: the v1 /endpointstats document). */
HRESULT WINAPI HcnQueryEndpointStats(HCN_ENDPOINT Endpoint, PCWSTR Query, PWSTR *Stats, PWSTR *ErrorRecord) {
  return query_props(&ENDPOINT, "HcnQueryEndpointStats", Endpoint, Query, Stats, ErrorRecord);
}
HRESULT WINAPI HcnDeleteEndpoint(const GUID *Id, PWSTR *ErrorRecord) {
  return remove_object(&ENDPOINT, Id, ErrorRecord);
}
HRESULT WINAPI HcnCloseEndpoint(HCN_ENDPOINT Endpoint) {
  return close_handle(&ENDPOINT, Endpoint);
}

/* ───────────────────────── namespaces ───────────────────────── */

HRESULT WINAPI HcnEnumerateNamespaces(PCWSTR Query, PWSTR *Namespaces, PWSTR *ErrorRecord) {
  return enumerate(&NAMESPACE, Query, Namespaces, ErrorRecord);
}
HRESULT WINAPI HcnCreateNamespace(const GUID *Id, PCWSTR Settings, HCN_NAMESPACE *Namespace, PWSTR *ErrorRecord) {
  return create(&NAMESPACE, NULL, Id, Settings, Namespace, ErrorRecord);
}
HRESULT WINAPI HcnOpenNamespace(const GUID *Id, HCN_NAMESPACE *Namespace, PWSTR *ErrorRecord) {
  return open_object(&NAMESPACE, Id, Namespace, ErrorRecord);
}
HRESULT WINAPI HcnModifyNamespace(HCN_NAMESPACE Namespace, PCWSTR Settings, PWSTR *ErrorRecord) {
  return modify(&NAMESPACE, Namespace, Settings, ErrorRecord);
}
HRESULT WINAPI HcnQueryNamespaceProperties(HCN_NAMESPACE Namespace, PCWSTR Query, PWSTR *Properties,
                                           PWSTR *ErrorRecord) {
  return query_props(&NAMESPACE, NAMESPACE.query, Namespace, Query, Properties, ErrorRecord);
}
HRESULT WINAPI HcnDeleteNamespace(const GUID *Id, PWSTR *ErrorRecord) {
  return remove_object(&NAMESPACE, Id, ErrorRecord);
}
HRESULT WINAPI HcnCloseNamespace(HCN_NAMESPACE Namespace) {
  return close_handle(&NAMESPACE, Namespace);
}

/* ───────────────────────── load balancers ───────────────────────── */

HRESULT WINAPI HcnEnumerateLoadBalancers(PCWSTR Query, PWSTR *LoadBalancers, PWSTR *ErrorRecord) {
  return enumerate(&LOADBALANCER, Query, LoadBalancers, ErrorRecord);
}
HRESULT WINAPI HcnCreateLoadBalancer(const GUID *Id, PCWSTR Settings, HCN_LOADBALANCER *LoadBalancer,
                                     PWSTR *ErrorRecord) {
  return create(&LOADBALANCER, NULL, Id, Settings, LoadBalancer, ErrorRecord);
}
HRESULT WINAPI HcnOpenLoadBalancer(const GUID *Id, HCN_LOADBALANCER *LoadBalancer, PWSTR *ErrorRecord) {
  return open_object(&LOADBALANCER, Id, LoadBalancer, ErrorRecord);
}
HRESULT WINAPI HcnModifyLoadBalancer(HCN_LOADBALANCER LoadBalancer, PCWSTR Settings, PWSTR *ErrorRecord) {
  return modify(&LOADBALANCER, LoadBalancer, Settings, ErrorRecord);
}
HRESULT WINAPI HcnQueryLoadBalancerProperties(HCN_LOADBALANCER LoadBalancer, PCWSTR Query, PWSTR *Properties,
                                              PWSTR *ErrorRecord) {
  return query_props(&LOADBALANCER, LOADBALANCER.query, LoadBalancer, Query, Properties, ErrorRecord);
}
HRESULT WINAPI HcnDeleteLoadBalancer(const GUID *Id, PWSTR *ErrorRecord) {
  return remove_object(&LOADBALANCER, Id, ErrorRecord);
}
HRESULT WINAPI HcnCloseLoadBalancer(HCN_LOADBALANCER LoadBalancer) {
  return close_handle(&LOADBALANCER, LoadBalancer);
}

/* ───────────────────────── SDN routes (hcsshim's hcnCreateRoute & co.) ───────────────────────── */

HRESULT WINAPI HcnEnumerateSdnRoutes(PCWSTR Query, PWSTR *Routes, PWSTR *ErrorRecord) {
  return enumerate(&ROUTE, Query, Routes, ErrorRecord);
}
HRESULT WINAPI HcnCreateSdnRoute(const GUID *Id, PCWSTR Settings, HCN_ROUTE *Route, PWSTR *ErrorRecord) {
  return create(&ROUTE, NULL, Id, Settings, Route, ErrorRecord);
}
HRESULT WINAPI HcnOpenSdnRoute(const GUID *Id, HCN_ROUTE *Route, PWSTR *ErrorRecord) {
  return open_object(&ROUTE, Id, Route, ErrorRecord);
}
HRESULT WINAPI HcnModifySdnRoute(HCN_ROUTE Route, PCWSTR Settings, PWSTR *ErrorRecord) {
  return modify(&ROUTE, Route, Settings, ErrorRecord);
}
HRESULT WINAPI HcnQuerySdnRouteProperties(HCN_ROUTE Route, PCWSTR Query, PWSTR *Properties, PWSTR *ErrorRecord) {
  return query_props(&ROUTE, ROUTE.query, Route, Query, Properties, ErrorRecord);
}
HRESULT WINAPI HcnDeleteSdnRoute(const GUID *Id, PWSTR *ErrorRecord) {
  return remove_object(&ROUTE, Id, ErrorRecord);
}
HRESULT WINAPI HcnCloseSdnRoute(HCN_ROUTE Route) {
  return close_handle(&ROUTE, Route);
}

/* ───────────────────────── service and notifications (working no-ops) ───────────────────────── */

/*
 * The service handle of hcsshim before v0.10.0. Opening it asks nothing of HNS here: the
 * simulator is reached by the calls that need it.
 */
HRESULT WINAPI HcnOpenService(HCN_SERVICE *Service, PWSTR *ErrorRecord) {
  hn_out_null(ErrorRecord);
  if (!Service) return HN_E_POINTER;
  *Service = hn_handle_new(HN_KIND_SERVICE, "", NULL);
  return *Service ? S_OK : HN_E_OUTOFMEMORY;
}
HRESULT WINAPI HcnCloseService(HCN_SERVICE Service) {
  return hn_handle_close(Service, HN_KIND_SERVICE, NULL) ? S_OK : HN_E_HANDLE;
}

/*
 * Two signatures share this name: the documented one (Callback, Context, CallbackHandle*) and the
 * one hcsshim bound before v0.10.0 (Service, Callback, Context, CallbackHandle*). A first argument
 * that is a service handle from HcnOpenService selects the older form; a callback is a code
 * address, never one of this table's values. (On x64 the fourth parameter is a register, so a
 * three-argument caller is safe.) The registration is kept and never called: the line protocol
 * has no channel for HNS notifications.
 */
HRESULT WINAPI HcnRegisterServiceCallback(void *a, void *b, void *c, void *d) {
  int with_service = a && hn_handle_get((HANDLE)a, HN_KIND_SERVICE, NULL, NULL);
  void *callback = with_service ? b : a;
  HCN_CALLBACK *out = (HCN_CALLBACK *)(with_service ? d : c);
  if (!out) return HN_E_POINTER;
  *out = NULL;
  if (!callback) return HN_E_INVALIDARG;
  *out = hn_handle_new(HN_KIND_HCN_CALLBACK, "", NULL);
  return *out ? S_OK : HN_E_OUTOFMEMORY;
}
HRESULT WINAPI HcnUnregisterServiceCallback(HCN_CALLBACK CallbackHandle) {
  return hn_handle_close(CallbackHandle, HN_KIND_HCN_CALLBACK, NULL) ? S_OK : HN_E_HANDLE;
}
