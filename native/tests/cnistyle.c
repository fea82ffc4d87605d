/*
 * cnistyle.exe: a minimal CNI plugin for Windows that drives HNS through computenetwork.dll as
 * win-bridge does with hcsshim's hcn package (ApiVersion 2), so that an ADD and the later DEL,
 * run as separate processes, prove one persistent simulated host (issue 10).
 *
 * Invocation as the CNI spec has it: CNI_COMMAND (ADD, DEL or CHECK), CNI_CONTAINERID, CNI_NETNS
 * (the HNS namespace GUID; empty: ADD creates one), CNI_IFNAME in the environment, the network
 * configuration on stdin: {"cniVersion":"1.0.0","name":"…","type":"cnistyle","network":"<HNS
 * network name, default: name>"}.
 *
 *   ADD  find the network by name (enumerate with a Name filter, then open + query + close each,
 *        as hcn.GetNetworkByName), find or create the endpoint "<containerid>_<network>" (open the
 *        network, create with the zero GUID, query with the default query, close), attach it to
 *        the namespace (open, modify Add Endpoint, close); print a CNI result with "ips",
 *        "interfaces" and the HNS IDs as "endpoint" and "namespace".
 *   DEL  find the endpoint by name; if it has a namespace, detach it (modify Remove Endpoint);
 *        delete it by GUID. A missing endpoint is success, as CNI DEL must be.
 *   CHECK  the endpoint exists and is attached to CNI_NETNS.
 *
 * Failures print a CNI error document on stdout ({"cniVersion","code":999,"msg","details"}: the
 * call, its HRESULT and the error record) and exit 1. The DLL is bound as hcsshim binds it
 * (LoadLibraryExW from system32, GetProcAddress, results freed with CoTaskMemFree).
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <objbase.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef HRESULT(WINAPI *fn_enum)(PCWSTR, PWSTR *, PWSTR *);
typedef HRESULT(WINAPI *fn_create)(const GUID *, PCWSTR, HANDLE *, PWSTR *);
typedef HRESULT(WINAPI *fn_create_ep)(HANDLE, const GUID *, PCWSTR, HANDLE *, PWSTR *);
typedef HRESULT(WINAPI *fn_open)(const GUID *, HANDLE *, PWSTR *);
typedef HRESULT(WINAPI *fn_modify)(HANDLE, PCWSTR, PWSTR *);
typedef HRESULT(WINAPI *fn_query)(HANDLE, PCWSTR, PWSTR *, PWSTR *);
typedef HRESULT(WINAPI *fn_delete)(const GUID *, PWSTR *);
typedef HRESULT(WINAPI *fn_close)(HANDLE);

static HMODULE dll;
static void(WINAPI *task_free)(void *);
static const char *cni_version = "1.0.0";

/* hcsshim's defaultQuery(): schema 2.0, no flags */
static const char *DEFAULT_QUERY = "{\"SchemaVersion\":{\"Major\":2,\"Minor\":0},\"Flags\":0}";

static FARPROC proc(const char *name) {
  FARPROC p = GetProcAddress(dll, name);
  if (!p) {
    printf("{\"cniVersion\":\"%s\",\"code\":999,\"msg\":\"%s not found in computenetwork.dll\"}\n",
           cni_version, name);
    exit(1);
  }
  return p;
}

/* ───────────── strings ───────────── */

static wchar_t *widen(const char *s) {
  int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
  wchar_t *w = malloc(sizeof(wchar_t) * (size_t)(n > 0 ? n : 1));
  if (n > 0) MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n);
  else w[0] = 0;
  return w;
}

static char *narrow(const wchar_t *w) {
  if (!w) return _strdup("");
  int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
  char *s = malloc((size_t)(n > 0 ? n : 1));
  if (n > 0) WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
  else s[0] = 0;
  return s;
}

/* A DLL result as UTF-8, freed with CoTaskMemFree as hcsshim's ConvertAndFreeCoTaskMemString. */
static char *take(PWSTR w) {
  char *s = narrow(w);
  if (w) task_free(w);
  return s;
}

/* The string value of the first "key":"…" in a JSON document (no escapes expected), or NULL. */
static char *json_str(const char *doc, const char *key) {
  char pat[128];
  snprintf(pat, sizeof pat, "\"%s\":\"", key);
  const char *p = strstr(doc, pat);
  if (!p) return NULL;
  p += strlen(pat);
  const char *q = strchr(p, '"');
  if (!q) return NULL;
  char *out = malloc((size_t)(q - p) + 1);
  memcpy(out, p, (size_t)(q - p));
  out[q - p] = 0;
  return out;
}

static long json_num(const char *doc, const char *key, long fallback) {
  char pat[128];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(doc, pat);
  return p ? strtol(p + strlen(pat), NULL, 10) : fallback;
}

static int parse_guid(const char *s, GUID *g) {
  unsigned a, b, c, d[8];
  if (!s) return 0;
  if (*s == '{') s++;
  if (strlen(s) < 36) return 0;
  if (sscanf(s, "%8x-%4x-%4x-%2x%2x-%2x%2x%2x%2x%2x%2x", &a, &b, &c, &d[0], &d[1], &d[2], &d[3], &d[4],
             &d[5], &d[6], &d[7]) != 11)
    return 0;
  g->Data1 = a;
  g->Data2 = (WORD)b;
  g->Data3 = (WORD)c;
  for (int i = 0; i < 8; i++) g->Data4[i] = (BYTE)d[i];
  return 1;
}

/* ───────────── failures ───────────── */

static void json_escaped(const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c < 0x20) printf("\\u%04x", c);
    else putchar(c);
  }
}

static void fail(const char *what, HRESULT hr, const char *record) {
  printf("{\"cniVersion\":\"%s\",\"code\":999,\"msg\":\"%s failed: 0x%08lX\",\"details\":\"", cni_version, what,
         (unsigned long)(DWORD)hr);
  json_escaped(record ? record : "");
  printf("\"}\n");
  exit(1);
}

static void fail_msg(const char *msg) {
  printf("{\"cniVersion\":\"%s\",\"code\":999,\"msg\":\"", cni_version);
  json_escaped(msg);
  printf("\"}\n");
  exit(1);
}

/* hcsshim's checkForErrors: a failed HRESULT or a non-empty error record is an error. */
static void check(const char *what, HRESULT hr, PWSTR record) {
  char *r = take(record);
  if (FAILED(hr) || r[0]) fail(what, hr, r);
  free(r);
}

/* ───────────── hcn operations, in hcsshim's order ───────────── */

/* HcnEnumerate<X>(query) → the JSON array of GUIDs, as text. */
static char *enumerate(const char *fn, const char *filter_key, const char *filter_value) {
  char query[1024];
  snprintf(query, sizeof query,
           "{\"SchemaVersion\":{\"Major\":2,\"Minor\":0},\"Flags\":0,\"Filter\":\"{\\\"%s\\\":\\\"%s\\\"}\"}",
           filter_key, filter_value);
  wchar_t *q = widen(query);
  PWSTR out = NULL, rec = NULL;
  HRESULT hr = ((fn_enum)(void *)proc(fn))(q, &out, &rec);
  free(q);
  check(fn, hr, rec);
  return take(out);
}

/* The first GUID of a JSON array of GUIDs ("[\"…\"]"), or 0. */
static int first_guid(const char *ids, GUID *g, char out[64]) {
  const char *p = strchr(ids, '"');
  if (!p) return 0;
  snprintf(out, 64, "%.36s", p + 1);
  return parse_guid(out, g);
}

/* Open, query with the default query, close: the object's document (hcsshim getX). */
static char *get(const char *open_fn, const char *query_fn, const char *close_fn, const GUID *id) {
  HANDLE h = NULL;
  PWSTR rec = NULL, props = NULL;
  HRESULT hr = ((fn_open)(void *)proc(open_fn))(id, &h, &rec);
  check(open_fn, hr, rec);
  rec = NULL;
  wchar_t *q = widen(DEFAULT_QUERY);
  hr = ((fn_query)(void *)proc(query_fn))(h, q, &props, &rec);
  free(q);
  check(query_fn, hr, rec);
  char *doc = take(props);
  hr = ((fn_close)(void *)proc(close_fn))(h);
  check(close_fn, hr, NULL);
  return doc;
}

/* Open the namespace, send one modify request, close (hcsshim modifyNamespace). */
static void modify_namespace(const GUID *ns, const char *request_type, const char *endpoint_id) {
  HANDLE h = NULL;
  PWSTR rec = NULL;
  HRESULT hr = ((fn_open)(void *)proc("HcnOpenNamespace"))(ns, &h, &rec);
  check("HcnOpenNamespace", hr, rec);
  char settings[512];
  snprintf(settings, sizeof settings,
           "{\"ResourceType\":\"Endpoint\",\"RequestType\":\"%s\",\"Settings\":{\"EndpointId\":\"%s\"}}",
           request_type, endpoint_id);
  wchar_t *w = widen(settings);
  rec = NULL;
  hr = ((fn_modify)(void *)proc("HcnModifyNamespace"))(h, w, &rec);
  free(w);
  check("HcnModifyNamespace", hr, rec);
  hr = ((fn_close)(void *)proc("HcnCloseNamespace"))(h);
  check("HcnCloseNamespace", hr, NULL);
}

static char *read_all(FILE *in) {
  size_t cap = 4096, n = 0;
  char *s = malloc(cap);
  size_t got;
  while ((got = fread(s + n, 1, cap - n - 1, in)) > 0) {
    n += got;
    if (n + 1 >= cap) s = realloc(s, cap *= 2);
  }
  s[n] = 0;
  return s;
}

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v ? v : "";
}

int main(void) {
  const char *command = env("CNI_COMMAND");
  const char *container = env("CNI_CONTAINERID");
  const char *netns = env("CNI_NETNS");
  const char *ifname = env("CNI_IFNAME");
  if (strcmp(command, "VERSION") == 0) {
    printf("{\"cniVersion\":\"1.0.0\",\"supportedVersions\":[\"0.4.0\",\"1.0.0\"]}\n");
    return 0;
  }
  char *conf = read_all(stdin);
  char *v = json_str(conf, "cniVersion");
  if (v) cni_version = v;
  char *network = json_str(conf, "network");
  if (!network) network = json_str(conf, "name");
  if (!network) fail_msg("the network configuration has no name");
  if (!container[0]) fail_msg("CNI_CONTAINERID is not set");

  dll = LoadLibraryExW(L"computenetwork.dll", NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
  if (!dll) fail_msg("computenetwork.dll is not in system32");
  HMODULE com = LoadLibraryExW(L"api-ms-win-core-com-l1-1-0.dll", NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
  if (com) task_free = (void(WINAPI *)(void *))(void *)GetProcAddress(com, "CoTaskMemFree");
  if (!task_free) task_free = CoTaskMemFree;

  char endpoint_name[512];
  snprintf(endpoint_name, sizeof endpoint_name, "%s_%s", container, network);
  char id[64];
  GUID g;

  if (strcmp(command, "ADD") == 0) {
    char *nets = enumerate("HcnEnumerateNetworks", "Name", network);
    if (!first_guid(nets, &g, id)) {
      char msg[600];
      snprintf(msg, sizeof msg, "network %s not found", network);
      fail_msg(msg);
    }
    GUID net_guid = g;
    char net_id[64];
    strcpy(net_id, id);
    free(get("HcnOpenNetwork", "HcnQueryNetworkProperties", "HcnCloseNetwork", &net_guid));

    char *eps = enumerate("HcnEnumerateEndpoints", "Name", endpoint_name);
    char *doc;
    if (first_guid(eps, &g, id)) {
      doc = get("HcnOpenEndpoint", "HcnQueryEndpointProperties", "HcnCloseEndpoint", &g);
    } else {
      HANDLE net = NULL, ep = NULL;
      PWSTR rec = NULL, props = NULL;
      HRESULT hr = ((fn_open)(void *)proc("HcnOpenNetwork"))(&net_guid, &net, &rec);
      check("HcnOpenNetwork", hr, rec);
      char settings[1024];
      snprintf(settings, sizeof settings,
               "{\"SchemaVersion\":{\"Major\":2,\"Minor\":0},\"Name\":\"%s\",\"HostComputeNetwork\":\"%s\"}",
               endpoint_name, net_id);
      wchar_t *w = widen(settings);
      static const GUID zero;
      rec = NULL;
      hr = ((fn_create_ep)(void *)proc("HcnCreateEndpoint"))(net, &zero, w, &ep, &rec);
      free(w);
      check("HcnCreateEndpoint", hr, rec);
      wchar_t *q = widen(DEFAULT_QUERY);
      rec = NULL;
      hr = ((fn_query)(void *)proc("HcnQueryEndpointProperties"))(ep, q, &props, &rec);
      free(q);
      check("HcnQueryEndpointProperties", hr, rec);
      doc = take(props);
      check("HcnCloseEndpoint", ((fn_close)(void *)proc("HcnCloseEndpoint"))(ep), NULL);
      check("HcnCloseNetwork", ((fn_close)(void *)proc("HcnCloseNetwork"))(net), NULL);
    }
    char *ep_id = json_str(doc, "ID");
    if (!ep_id) fail_msg("the endpoint document has no ID");

    GUID ns;
    char ns_id[64];
    if (parse_guid(netns, &ns)) {
      snprintf(ns_id, sizeof ns_id, "%.36s", netns[0] == '{' ? netns + 1 : netns);
    } else {
      HANDLE h = NULL;
      PWSTR rec = NULL, props = NULL;
      static const GUID zero;
      wchar_t *w = widen("{\"SchemaVersion\":{\"Major\":2,\"Minor\":0},\"Type\":\"HostDefault\"}");
      HRESULT hr = ((fn_create)(void *)proc("HcnCreateNamespace"))(&zero, w, &h, &rec);
      free(w);
      check("HcnCreateNamespace", hr, rec);
      wchar_t *q = widen(DEFAULT_QUERY);
      rec = NULL;
      hr = ((fn_query)(void *)proc("HcnQueryNamespaceProperties"))(h, q, &props, &rec);
      free(q);
      check("HcnQueryNamespaceProperties", hr, rec);
      char *nsdoc = take(props);
      char *nid = json_str(nsdoc, "ID");
      if (!nid || !parse_guid(nid, &ns)) fail_msg("the namespace document has no ID");
      snprintf(ns_id, sizeof ns_id, "%s", nid);
      check("HcnCloseNamespace", ((fn_close)(void *)proc("HcnCloseNamespace"))(h), NULL);
    }
    char *attached_to = json_str(doc, "HostComputeNamespace");
    if (!attached_to || _stricmp(attached_to, ns_id) != 0) modify_namespace(&ns, "Add", ep_id);

    char *ip = json_str(doc, "IpAddress");
    long prefix = json_num(doc, "PrefixLength", 32);
    char *mac = json_str(doc, "MacAddress");
    printf("{\"cniVersion\":\"%s\",\"interfaces\":[{\"name\":\"%s\",\"mac\":\"%s\",\"sandbox\":\"%s\"}],"
           "\"ips\":[{\"address\":\"%s/%ld\",\"interface\":0}],\"endpoint\":\"%s\",\"namespace\":\"%s\"}\n",
           cni_version, ifname, mac ? mac : "", ns_id, ip ? ip : "", prefix, ep_id, ns_id);
    return 0;
  }

  if (strcmp(command, "DEL") == 0 || strcmp(command, "CHECK") == 0) {
    char *eps = enumerate("HcnEnumerateEndpoints", "Name", endpoint_name);
    if (!first_guid(eps, &g, id)) {
      if (strcmp(command, "CHECK") == 0) {
        char msg[700];
        snprintf(msg, sizeof msg, "endpoint %s not found", endpoint_name);
        fail_msg(msg);
      }
      return 0;
    }
    char *doc = get("HcnOpenEndpoint", "HcnQueryEndpointProperties", "HcnCloseEndpoint", &g);
    char *ns = json_str(doc, "HostComputeNamespace");
    if (strcmp(command, "CHECK") == 0) {
      GUID want, have;
      if (!ns || !parse_guid(ns, &have) || (parse_guid(netns, &want) && memcmp(&want, &have, sizeof want) != 0))
        fail_msg("the endpoint is not attached to CNI_NETNS");
      return 0;
    }
    GUID nsg;
    if (ns && parse_guid(ns, &nsg)) modify_namespace(&nsg, "Remove", id);
    PWSTR rec = NULL;
    HRESULT hr = ((fn_delete)(void *)proc("HcnDeleteEndpoint"))(&g, &rec);
    check("HcnDeleteEndpoint", hr, rec);
    return 0;
  }

  fail_msg("CNI_COMMAND must be ADD, DEL, CHECK or VERSION");
  return 1;
}
