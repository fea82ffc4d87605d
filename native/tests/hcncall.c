/*
 * hcncall.exe: calls computenetwork.dll, vmcompute.dll and computecore.dll exports the way hcsshim
 * does, from a table of calls read on stdin, and prints one JSON line per call (issue 10's
 * differential tests, test/wine/).
 *
 * Binding, as hcsshim's generated zsyscall_windows.go files do it: the DLL is loaded from system32
 * only (windows.NewLazySystemDLL: LoadLibraryExW with LOAD_LIBRARY_SEARCH_SYSTEM32, else the full
 * system32 path), each function is found with GetProcAddress (a missing one is
 * ERROR_PROC_NOT_FOUND, as LazyProc.Find reports it), every out-pointer starts at NULL, and every
 * string the call returns is read, then freed with CoTaskMemFree taken from
 * api-ms-win-core-com-l1-1-0.dll (internal/interop). The prototypes are written here from hcsshim's
 * signatures (hcn/zsyscall_windows.go, internal/vmcompute/zsyscall_windows.go,
 * internal/computecore/zsyscall_windows.go), not taken from the DLLs' sources.
 *
 * Input: one call per line, fields separated by TAB:
 *
 *   FUNCTION  ARG...  [>VAR]  [&VAR]
 *
 * An argument is, by the parameter's type:
 *   GUID*    a GUID ("{…}" or bare), 0 (the zero GUID hcsshim passes on create), ~ (NULL), %VAR
 *   handle   $VAR (a handle an earlier call stored), #NUMBER (any value: 0x… or decimal), ~ (NULL)
 *   string   the text (\t \n \r \\ escapes; %{VAR} is replaced by VAR's GUID), ~ for NULL
 *   number   decimal or 0x…
 * ">VAR" stores the call's out-handle in VAR (and a GUID argument, if the call has one, as VAR's
 * GUID); "&VAR" stores the "ID"/"Id" of the call's result document (or the first GUID in it) as
 * VAR's GUID.
 *
 * Directives: "!loop N" … "!end" runs the lines between N times, printing one summary line;
 * "!threads N M" … "!end" runs them M times in each of N threads at once (summary per thread;
 * names a thread stores are its own);
 * "!touch PATH" creates a file; "!wait PATH [MS]" waits until a file exists; "!sleep MS";
 * "!mem" prints the process's private bytes; "!echo TEXT" prints {"echo":TEXT}; "!nofree" and
 * "!free" turn the CoTaskMemFree of results off and on; "!quiet" / "!verbose" silence per-call
 * lines. Lines starting with # and blank lines are skipped.
 *
 * Output: one JSON object per line. A call prints
 *   {"i":N,"fn":"…","hr":UNSIGNED,"result":"…"|null,"record":"…"|null,"handle":N|null,
 *    "heap":[bool…],"us":MICROSECONDS}
 * where "result" is the returned document (enumeration, properties, HNSCall response), "record"
 * the error record (ErrorRecord / HCS result document), "handle" the out-handle (null when the call
 * has none), and "heap" whether each returned string is a block of the COM task allocator
 * (IMalloc::DidAlloc), checked before it is freed; a failure adds "msg", the system's text for
 * the code as hcsshim prints it (FormatMessage of the Win32 code a FACILITY_WIN32 HRESULT holds).
 * A missing export prints "missing":true and hr 0x8007007F. A block prints
 *   {"loop"|"thread":N,"i":N,"calls","failed","missing","badHeap","recordOnSuccess","unstable",
 *    "firstFailure":{"fn","hr"}|null,"us","usPerCall"}
 * where "unstable" counts calls whose result differed from the same line's first result. A
 * callback registered through the program (context 0x5eed) prints each notification it gets:
 *   {"notification":TYPE,"context":24301,"status":HR,"data":"…"|null} Exit code 0 unless the input is malformed (2) or a DLL cannot be loaded (3).
 */
#define WIN32_LEAN_AND_MEAN
#define COBJMACROS
#include <windows.h>
#include <objbase.h>
#include <psapi.h>
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
typedef HRESULT(WINAPI *fn_hnscall)(PCWSTR, PCWSTR, PCWSTR, PWSTR *);
typedef HRESULT(WINAPI *fn_open_service)(HANDLE *, PWSTR *);
typedef HRESULT(WINAPI *fn_register_sdk)(void *, void *, HANDLE *);
typedef HRESULT(WINAPI *fn_register_svc)(HANDLE, void *, void *, HANDLE *);
typedef HRESULT(WINAPI *fn_hcs_create)(PCWSTR, PCWSTR, HANDLE, HANDLE *, PWSTR *);
typedef HRESULT(WINAPI *fn_hcs_open)(PCWSTR, HANDLE *, PWSTR *);
typedef HRESULT(WINAPI *fn_hcs_settings)(PCWSTR, PWSTR *);
typedef HRESULT(WINAPI *fn_hcs_open_process)(HANDLE, DWORD, HANDLE *, PWSTR *);
typedef HRESULT(WINAPI *fn_hcs_handle_out)(HANDLE, PWSTR *);
typedef HRESULT(WINAPI *fn_hcs_create_process)(HANDLE, PCWSTR, void *, HANDLE *, PWSTR *);
typedef HRESULT(WINAPI *fn_hcs_register)(HANDLE, void *, void *, HANDLE *);
typedef HRESULT(WINAPI *fn_hcs_process_info)(HANDLE, void *, PWSTR *);
typedef HRESULT(WINAPI *fn_hcs_process_props)(HANDLE, PWSTR *, PWSTR *);
/* computecore.dll (HCS v2): operations carry the results */
typedef HANDLE(WINAPI *fn_cc_create_operation)(void *, void *);
typedef void(WINAPI *fn_cc_void_close)(HANDLE);
typedef HRESULT(WINAPI *fn_cc_create)(PCWSTR, PCWSTR, HANDLE, void *, HANDLE *);
typedef HRESULT(WINAPI *fn_cc_open)(PCWSTR, DWORD, HANDLE *);
typedef HRESULT(WINAPI *fn_cc_op)(HANDLE, HANDLE, PCWSTR);
typedef HRESULT(WINAPI *fn_cc_modify)(HANDLE, HANDLE, PCWSTR, HANDLE);
typedef HRESULT(WINAPI *fn_cc_enum)(PCWSTR, HANDLE);
typedef HRESULT(WINAPI *fn_cc_wait)(HANDLE, DWORD, PWSTR *);

/* How a function's parameters are laid out (one kind per hcsshim signature). */
enum kind {
  K_ENUM,          /* (query, out*, record*)                        HcnEnumerate*, HcsEnumerate/GetService (v1) */
  K_CREATE,        /* (GUID*, settings, handle*, record*)           HcnCreate* but Endpoint */
  K_CREATE_EP,     /* (network, GUID*, settings, handle*, record*)  HcnCreateEndpoint */
  K_OPEN,          /* (GUID*, handle*, record*)                     HcnOpen* */
  K_MODIFY,        /* (handle, settings, record*)                   HcnModify*, HcsStart…/Modify (v1) */
  K_QUERY,         /* (handle, query, out*, record*)                HcnQuery*Properties, HcnQueryEndpointStats, HcsGetComputeSystemProperties (v1) */
  K_DELETE,        /* (GUID*, record*)                              HcnDelete* */
  K_CLOSE,         /* (handle)                                      HcnClose*, HcsClose* (v1) */
  K_HNSCALL,       /* (method, path, object, response*)             HNSCall */
  K_OPEN_SERVICE,  /* (handle*, record*)                            HcnOpenService */
  K_REGISTER_SDK,  /* (callback, context, handle*)                  HcnRegisterServiceCallback (SDK) */
  K_REGISTER_SVC,  /* (service, callback, context, handle*)         HcnRegisterServiceCallback (old hcsshim) */
  K_HCS_CREATE,    /* (id, configuration, identity, handle*, result*) HcsCreateComputeSystem (v1) */
  K_HCS_OPEN,      /* (id, handle*, result*)                        HcsOpenComputeSystem (v1) */
  K_HCS_SETTINGS,  /* (settings, result*)                           HcsModifyServiceSettings */
  K_HCS_CREATE_PROCESS, /* (system, parameters, info*, handle*, result*) */
  K_HCS_OPEN_PROCESS,   /* (system, pid, handle*, result*) */
  K_HCS_HANDLE_OUT,     /* (process, result*)                       HcsTerminateProcess */
  K_HCS_PROCESS_INFO,   /* (process, info*, result*)                HcsGetProcessInfo */
  K_HCS_PROCESS_PROPS,  /* (process, properties*, result*)          HcsGetProcessProperties */
  K_HCS_REGISTER,       /* (handle, callback, context, handle*)     HcsRegister*Callback */
  K_CC_CREATE_OPERATION,/* (context, callback) → HCS_OPERATION       computecore HcsCreateOperation */
  K_CC_CLOSE,           /* (handle) → void                          computecore HcsClose* */
  K_CC_CREATE,          /* (id, configuration, operation, security, handle*) */
  K_CC_OPEN,            /* (id, access, handle*) */
  K_CC_OP,              /* (system, operation, options) */
  K_CC_MODIFY,          /* (system, operation, configuration, identity) */
  K_CC_ENUM,            /* (query, operation) */
  K_CC_WAIT             /* (operation, timeoutMs, result*)          HcsWaitForOperationResult / HcsGetOperationResult-like */
};

struct fn {
  const char *name;
  int dll; /* 0 computenetwork, 1 vmcompute, 2 computecore */
  enum kind kind;
};

/* Every export this program knows; a name with a DLL prefix "cc:" is computecore's. */
static const struct fn FNS[] = {
    {"HcnEnumerateNetworks", 0, K_ENUM},
    {"HcnCreateNetwork", 0, K_CREATE},
    {"HcnOpenNetwork", 0, K_OPEN},
    {"HcnModifyNetwork", 0, K_MODIFY},
    {"HcnQueryNetworkProperties", 0, K_QUERY},
    {"HcnDeleteNetwork", 0, K_DELETE},
    {"HcnCloseNetwork", 0, K_CLOSE},
    {"HcnEnumerateEndpoints", 0, K_ENUM},
    {"HcnCreateEndpoint", 0, K_CREATE_EP},
    {"HcnOpenEndpoint", 0, K_OPEN},
    {"HcnModifyEndpoint", 0, K_MODIFY},
    {"HcnQueryEndpointProperties", 0, K_QUERY},
    {"HcnQueryEndpointStats", 0, K_QUERY},
    {"HcnDeleteEndpoint", 0, K_DELETE},
    {"HcnCloseEndpoint", 0, K_CLOSE},
    {"HcnEnumerateNamespaces", 0, K_ENUM},
    {"HcnCreateNamespace", 0, K_CREATE},
    {"HcnOpenNamespace", 0, K_OPEN},
    {"HcnModifyNamespace", 0, K_MODIFY},
    {"HcnQueryNamespaceProperties", 0, K_QUERY},
    {"HcnDeleteNamespace", 0, K_DELETE},
    {"HcnCloseNamespace", 0, K_CLOSE},
    {"HcnEnumerateLoadBalancers", 0, K_ENUM},
    {"HcnCreateLoadBalancer", 0, K_CREATE},
    {"HcnOpenLoadBalancer", 0, K_OPEN},
    {"HcnModifyLoadBalancer", 0, K_MODIFY},
    {"HcnQueryLoadBalancerProperties", 0, K_QUERY},
    {"HcnDeleteLoadBalancer", 0, K_DELETE},
    {"HcnCloseLoadBalancer", 0, K_CLOSE},
    {"HcnEnumerateSdnRoutes", 0, K_ENUM},
    {"HcnCreateSdnRoute", 0, K_CREATE},
    {"HcnOpenSdnRoute", 0, K_OPEN},
    {"HcnModifySdnRoute", 0, K_MODIFY},
    {"HcnQuerySdnRouteProperties", 0, K_QUERY},
    {"HcnDeleteSdnRoute", 0, K_DELETE},
    {"HcnCloseSdnRoute", 0, K_CLOSE},
    {"HcnOpenService", 0, K_OPEN_SERVICE},
    {"HcnRegisterServiceCallback", 0, K_REGISTER_SDK},
    {"HcnRegisterServiceCallback:svc", 0, K_REGISTER_SVC},
    {"HcnUnregisterServiceCallback", 0, K_CLOSE},
    {"HcnCloseService", 0, K_CLOSE},
    {"HNSCall", 1, K_HNSCALL},
    {"HcsEnumerateComputeSystems", 1, K_ENUM},
    {"HcsCreateComputeSystem", 1, K_HCS_CREATE},
    {"HcsOpenComputeSystem", 1, K_HCS_OPEN},
    {"HcsCloseComputeSystem", 1, K_CLOSE},
    {"HcsStartComputeSystem", 1, K_MODIFY},
    {"HcsShutdownComputeSystem", 1, K_MODIFY},
    {"HcsTerminateComputeSystem", 1, K_MODIFY},
    {"HcsPauseComputeSystem", 1, K_MODIFY},
    {"HcsResumeComputeSystem", 1, K_MODIFY},
    {"HcsSaveComputeSystem", 1, K_MODIFY},
    {"HcsModifyComputeSystem", 1, K_MODIFY},
    {"HcsGetComputeSystemProperties", 1, K_QUERY},
    {"HcsGetServiceProperties", 1, K_ENUM},
    {"HcsModifyServiceSettings", 1, K_HCS_SETTINGS},
    {"HcsCreateProcess", 1, K_HCS_CREATE_PROCESS},
    {"HcsOpenProcess", 1, K_HCS_OPEN_PROCESS},
    {"HcsCloseProcess", 1, K_CLOSE},
    {"HcsTerminateProcess", 1, K_HCS_HANDLE_OUT},
    {"HcsSignalProcess", 1, K_MODIFY},
    {"HcsModifyProcess", 1, K_MODIFY},
    {"HcsGetProcessInfo", 1, K_HCS_PROCESS_INFO},
    {"HcsGetProcessProperties", 1, K_HCS_PROCESS_PROPS},
    {"HcsRegisterComputeSystemCallback", 1, K_HCS_REGISTER},
    {"HcsUnregisterComputeSystemCallback", 1, K_CLOSE},
    {"HcsRegisterProcessCallback", 1, K_HCS_REGISTER},
    {"HcsUnregisterProcessCallback", 1, K_CLOSE},
    {"cc:HcsCreateOperation", 2, K_CC_CREATE_OPERATION},
    {"cc:HcsCloseOperation", 2, K_CC_CLOSE},
    {"cc:HcsCreateComputeSystem", 2, K_CC_CREATE},
    {"cc:HcsOpenComputeSystem", 2, K_CC_OPEN},
    {"cc:HcsCloseComputeSystem", 2, K_CC_CLOSE},
    {"cc:HcsStartComputeSystem", 2, K_CC_OP},
    {"cc:HcsShutDownComputeSystem", 2, K_CC_OP},
    {"cc:HcsTerminateComputeSystem", 2, K_CC_OP},
    {"cc:HcsPauseComputeSystem", 2, K_CC_OP},
    {"cc:HcsResumeComputeSystem", 2, K_CC_OP},
    {"cc:HcsModifyComputeSystem", 2, K_CC_MODIFY},
    {"cc:HcsGetComputeSystemProperties", 2, K_CC_OP},
    {"cc:HcsEnumerateComputeSystems", 2, K_CC_ENUM},
    {"cc:HcsWaitForOperationResult", 2, K_CC_WAIT},
};
#define NFNS (sizeof FNS / sizeof FNS[0])

static const wchar_t *DLL_NAMES[] = {L"computenetwork.dll", L"vmcompute.dll", L"computecore.dll"};
static HMODULE dlls[3];
static BOOL dll_tried[3];
static void(WINAPI *task_free)(void *);
static IMalloc *task_malloc;
static int free_results = 1;
static int quiet = 0;
static CRITICAL_SECTION out_lock;

/* ───────────────────────────── output ───────────────────────────── */

struct buf {
  char *p;
  size_t n, cap;
};

static void buf_grow(struct buf *b, size_t more) {
  if (b->n + more + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->n + more + 1) cap *= 2;
  b->p = realloc(b->p, cap);
  if (!b->p) {
    fputs("hcncall: out of memory\n", stderr);
    exit(4);
  }
  b->cap = cap;
}

static void put(struct buf *b, const char *s) {
  size_t len = strlen(s);
  buf_grow(b, len);
  memcpy(b->p + b->n, s, len + 1);
  b->n += len;
}

static void putf(struct buf *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  put(b, tmp);
}

/* A UTF-16 string as a JSON string literal (non-ASCII as \u escapes), or null. */
static void put_wjson(struct buf *b, const wchar_t *w) {
  if (!w) {
    put(b, "null");
    return;
  }
  put(b, "\"");
  for (; *w; w++) {
    unsigned c = (unsigned)*w;
    if (c == '"') put(b, "\\\"");
    else if (c == '\\') put(b, "\\\\");
    else if (c >= 0x20 && c < 0x7f) {
      char s[2] = {(char)c, 0};
      put(b, s);
    } else putf(b, "\\u%04x", c);
  }
  put(b, "\"");
}

/* An ASCII/UTF-8 string as a JSON string literal. */
static void put_json(struct buf *b, const char *s) {
  put(b, "\"");
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"') put(b, "\\\"");
    else if (c == '\\') put(b, "\\\\");
    else if (c < 0x20) putf(b, "\\u%04x", c);
    else {
      char t[2] = {(char)c, 0};
      put(b, t);
    }
  }
  put(b, "\"");
}

static void emit(struct buf *b) {
  EnterCriticalSection(&out_lock);
  fwrite(b->p, 1, b->n, stdout);
  fputc('\n', stdout);
  fflush(stdout);
  LeaveCriticalSection(&out_lock);
  b->n = 0;
  if (b->p) b->p[0] = 0;
}

/* ───────────────────────────── variables ───────────────────────────── */

#define MAX_VARS 1024
struct var {
  char name[64];
  HANDLE handle;
  int has_guid;
  GUID guid;
};
static struct var vars[MAX_VARS];
static int nvars;
static CRITICAL_SECTION var_lock;

/* In a `!threads` block each thread has its own names (stored as NAME#THREAD); a name a thread has
   not stored is looked up among the main thread's. */
static __thread int var_scope;

static struct var *var_find(const char *name) {
  for (int i = 0; i < nvars; i++)
    if (strcmp(vars[i].name, name) == 0) return &vars[i];
  return NULL;
}

static struct var *var_get(const char *name, int create) {
  char scoped[80];
  if (var_scope) snprintf(scoped, sizeof scoped, "%s#%d", name, var_scope);
  else snprintf(scoped, sizeof scoped, "%s", name);
  EnterCriticalSection(&var_lock);
  struct var *found = var_find(scoped);
  if (!found && !create && var_scope) found = var_find(name);
  if (!found && create && nvars < MAX_VARS && strlen(scoped) < sizeof vars[0].name) {
    found = &vars[nvars++];
    memset(found, 0, sizeof *found);
    strcpy(found->name, scoped);
  }
  LeaveCriticalSection(&var_lock);
  return found;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", braces optional; 1 on success. */
static int parse_guid(const char *s, GUID *g) {
  unsigned char bytes[16];
  int n = 0;
  size_t len = strlen(s);
  if (len == 38 && s[0] == '{' && s[37] == '}') {
    s++;
    len = 36;
  }
  if (len != 36) return 0;
  for (size_t i = 0; i < 36; i++) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return 0;
      continue;
    }
    int hi = hexval(s[i]), lo = hexval(s[i + 1]);
    if (hi < 0 || lo < 0) return 0;
    bytes[n++] = (unsigned char)(hi * 16 + lo);
    i++;
  }
  g->Data1 = ((DWORD)bytes[0] << 24) | ((DWORD)bytes[1] << 16) | ((DWORD)bytes[2] << 8) | bytes[3];
  g->Data2 = (WORD)((bytes[4] << 8) | bytes[5]);
  g->Data3 = (WORD)((bytes[6] << 8) | bytes[7]);
  memcpy(g->Data4, bytes + 8, 8);
  return 1;
}

static int is_zero_guid(const GUID *g) {
  static const GUID zero;
  return memcmp(g, &zero, sizeof zero) == 0;
}

static void format_guid(const GUID *g, char out[37]) {
  snprintf(out, 37, "%08lX-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X", (unsigned long)g->Data1,
           g->Data2, g->Data3, g->Data4[0], g->Data4[1], g->Data4[2], g->Data4[3], g->Data4[4],
           g->Data4[5], g->Data4[6], g->Data4[7]);
}

/* The ID a result document names: "ID":"…" or "Id":"…", else the first GUID in it. */
static int find_id(const wchar_t *w, GUID *g) {
  if (!w) return 0;
  size_t len = wcslen(w);
  char *s = malloc(len + 1);
  for (size_t i = 0; i <= len; i++) s[i] = w[i] < 0x80 ? (char)w[i] : '?';
  const char *keys[] = {"\"ID\":\"", "\"Id\":\""};
  int ok = 0;
  for (int k = 0; k < 2 && !ok; k++) {
    const char *p = strstr(s, keys[k]);
    if (p) {
      char tmp[39] = {0};
      p += strlen(keys[k]);
      const char *q = strchr(p, '"');
      if (q && q - p <= 38) {
        memcpy(tmp, p, (size_t)(q - p));
        ok = parse_guid(tmp, g);
      }
    }
  }
  for (size_t i = 0; !ok && i + 36 <= len; i++) {
    char tmp[37];
    memcpy(tmp, s + i, 36);
    tmp[36] = 0;
    ok = parse_guid(tmp, g);
  }
  free(s);
  return ok;
}

/* ───────────────────────────── arguments ───────────────────────────── */

#define MAX_FIELDS 16

static unsigned long long parse_number(const char *s) {
  return strtoull(s, NULL, 0);
}

/* Unescape a string argument (\t \n \r \\) and replace %{VAR} by VAR's GUID; a new UTF-16 string. */
static wchar_t *string_arg(const char *s) {
  struct buf b = {0};
  put(&b, "");
  for (const char *p = s; *p; p++) {
    if (*p == '\\' && p[1]) {
      p++;
      char c = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p == 'r' ? '\r' : *p;
      char t[2] = {c, 0};
      put(&b, t);
    } else if (*p == '%' && p[1] == '{') {
      const char *end = strchr(p, '}');
      if (!end) {
        put(&b, "%");
        continue;
      }
      char name[64] = {0};
      size_t n = (size_t)(end - p - 2);
      if (n >= sizeof name) n = sizeof name - 1;
      memcpy(name, p + 2, n);
      struct var *v = var_get(name, 0);
      if (v && v->has_guid) {
        char g[37];
        format_guid(&v->guid, g);
        put(&b, g);
      } else {
        fprintf(stderr, "hcncall: %%{%s}: no GUID stored under that name\n", name);
        put(&b, "00000000-0000-0000-0000-000000000000");
      }
      p = end;
    } else {
      char t[2] = {*p, 0};
      put(&b, t);
    }
  }
  int wn = MultiByteToWideChar(CP_UTF8, 0, b.p, -1, NULL, 0);
  wchar_t *w = malloc(sizeof(wchar_t) * (size_t)(wn > 0 ? wn : 1));
  if (wn > 0) MultiByteToWideChar(CP_UTF8, 0, b.p, -1, w, wn);
  else w[0] = 0;
  free(b.p);
  return w;
}

struct call {
  const struct fn *fn;
  int nargs;
  char *args[MAX_FIELDS];
  char *store_handle; /* >VAR */
  char *store_id;     /* &VAR */
};

/* A GUID argument; *null set for "~". 0 on a malformed one. */
static int guid_arg(const char *s, GUID *g, int *null) {
  *null = 0;
  memset(g, 0, sizeof *g);
  if (strcmp(s, "~") == 0) {
    *null = 1;
    return 1;
  }
  if (strcmp(s, "0") == 0) return 1;
  if (s[0] == '%') {
    struct var *v = var_get(s + 1, 0);
    if (!v || !v->has_guid) {
      fprintf(stderr, "hcncall: %s: no GUID stored under that name\n", s);
      return 0;
    }
    *g = v->guid;
    return 1;
  }
  return parse_guid(s, g);
}

static HANDLE handle_arg(const char *s) {
  if (strcmp(s, "~") == 0) return NULL;
  if (s[0] == '#') return (HANDLE)(ULONG_PTR)parse_number(s + 1);
  if (s[0] == '$') {
    struct var *v = var_get(s + 1, 0);
    if (!v) {
      fprintf(stderr, "hcncall: %s: no handle stored under that name\n", s);
      return NULL;
    }
    return v->handle;
  }
  return (HANDLE)(ULONG_PTR)parse_number(s);
}

static const wchar_t *opt_string(wchar_t **slot, const char *s) {
  if (strcmp(s, "~") == 0) return NULL;
  *slot = string_arg(s);
  return *slot;
}

/* ───────────────────────────── calling ───────────────────────────── */

static HMODULE load_system_dll(int which) {
  if (dll_tried[which]) return dlls[which];
  dll_tried[which] = TRUE;
  /* windows.NewLazySystemDLL: system32 only */
  HMODULE h = LoadLibraryExW(DLL_NAMES[which], NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
  if (!h && GetLastError() == ERROR_INVALID_PARAMETER) {
    wchar_t path[MAX_PATH];
    UINT n = GetSystemDirectoryW(path, MAX_PATH);
    if (n > 0 && n < MAX_PATH - 32) {
      wcscat(path, L"\\");
      wcscat(path, DLL_NAMES[which]);
      h = LoadLibraryExW(path, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
    }
  }
  dlls[which] = h;
  return h;
}

static void init_task_allocator(void) {
  HMODULE com = LoadLibraryExW(L"api-ms-win-core-com-l1-1-0.dll", NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
  if (!com) com = LoadLibraryExW(L"ole32.dll", NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
  if (com) task_free = (void(WINAPI *)(void *))(void *)GetProcAddress(com, "CoTaskMemFree");
  if (!task_free) task_free = CoTaskMemFree;
  if (FAILED(CoGetMalloc(1, &task_malloc))) task_malloc = NULL;
}

/* HCS_NOTIFICATION_CALLBACK / HCN_NOTIFICATION_CALLBACK: each notification is printed as
   {"notification":TYPE,"context":N,"status":HR,"data":"…"|null} (from the DLL's thread). */
static void CALLBACK print_callback(DWORD type, void *context, HRESULT status, PCWSTR data) {
  struct buf b = {0};
  putf(&b, "{\"notification\":%lu,\"context\":%llu,\"status\":%lu,\"data\":", (unsigned long)type,
       (unsigned long long)(ULONG_PTR)context, (unsigned long)(DWORD)status);
  put_wjson(&b, data);
  put(&b, "}");
  emit(&b);
  free(b.p);
}

struct outcome {
  HRESULT hr;
  int missing;
  int has_handle;
  HANDLE handle;
  wchar_t *result;
  wchar_t *record;
  double us;
};

static double now_us(void) {
  static LARGE_INTEGER freq;
  LARGE_INTEGER t;
  if (!freq.QuadPart) QueryPerformanceFrequency(&freq);
  QueryPerformanceCounter(&t);
  return (double)t.QuadPart * 1e6 / (double)freq.QuadPart;
}

/* Run one call; 0 if its arguments are malformed. */
static int run_call(const struct call *c, struct outcome *o) {
  memset(o, 0, sizeof *o);
  const struct fn *f = c->fn;
  HMODULE dll = load_system_dll(f->dll);
  if (!dll) {
    fwprintf(stderr, L"hcncall: cannot load %ls from system32 (error %lu)\n", DLL_NAMES[f->dll],
             GetLastError());
    exit(3);
  }
  const char *export_name = f->name;
  if (strncmp(export_name, "cc:", 3) == 0) export_name += 3;
  char plain[128];
  snprintf(plain, sizeof plain, "%s", export_name);
  char *colon = strchr(plain, ':');
  if (colon) *colon = 0;
  FARPROC p = GetProcAddress(dll, plain);
  if (!p) {
    o->missing = 1;
    o->hr = HRESULT_FROM_WIN32(ERROR_PROC_NOT_FOUND);
    return 1;
  }
  wchar_t *s1 = NULL, *s2 = NULL, *s3 = NULL;
  GUID g;
  int gnull = 0;
  PWSTR out = NULL, rec = NULL;
  HANDLE h = NULL;
  int need = 0;
  const char *const *a = (const char *const *)c->args;
  switch (f->kind) {
  case K_ENUM: case K_HCS_SETTINGS: need = 1; break;
  case K_CC_ENUM: need = 2; break;
  case K_CREATE: need = 2; break;
  case K_CREATE_EP: need = 3; break;
  case K_OPEN: case K_DELETE: case K_CLOSE: case K_OPEN_SERVICE: case K_REGISTER_SDK: case K_HCS_OPEN:
  case K_HCS_HANDLE_OUT: case K_HCS_PROCESS_INFO: case K_HCS_PROCESS_PROPS: case K_HCS_REGISTER:
  case K_REGISTER_SVC: case K_CC_CLOSE: case K_CC_CREATE_OPERATION:
    need = (f->kind == K_OPEN_SERVICE || f->kind == K_REGISTER_SDK || f->kind == K_CC_CREATE_OPERATION) ? 0 : 1;
    break;
  case K_MODIFY: case K_QUERY: case K_HCS_CREATE: case K_HCS_CREATE_PROCESS: case K_HCS_OPEN_PROCESS:
  case K_CC_OPEN: case K_CC_WAIT:
    need = 2;
    break;
  case K_HNSCALL: case K_CC_CREATE: case K_CC_OP: case K_CC_MODIFY: need = 3; break;
  }
  if (c->nargs < need) {
    fprintf(stderr, "hcncall: %s takes %d arguments, got %d\n", f->name, need, c->nargs);
    return 0;
  }
  double t0 = now_us();
  switch (f->kind) {
  case K_ENUM:
    o->hr = ((fn_enum)(void *)p)(opt_string(&s1, a[0]), &out, &rec);
    break;
  case K_CREATE:
    if (!guid_arg(a[0], &g, &gnull)) return 0;
    o->hr = ((fn_create)(void *)p)(gnull ? NULL : &g, opt_string(&s1, a[1]), &h, &rec);
    o->has_handle = 1;
    break;
  case K_CREATE_EP:
    if (!guid_arg(a[1], &g, &gnull)) return 0;
    o->hr = ((fn_create_ep)(void *)p)(handle_arg(a[0]), gnull ? NULL : &g, opt_string(&s1, a[2]), &h, &rec);
    o->has_handle = 1;
    break;
  case K_OPEN:
    if (!guid_arg(a[0], &g, &gnull)) return 0;
    o->hr = ((fn_open)(void *)p)(gnull ? NULL : &g, &h, &rec);
    o->has_handle = 1;
    break;
  case K_MODIFY:
    o->hr = ((fn_modify)(void *)p)(handle_arg(a[0]), opt_string(&s1, a[1]), &rec);
    break;
  case K_QUERY:
    o->hr = ((fn_query)(void *)p)(handle_arg(a[0]), opt_string(&s1, a[1]), &out, &rec);
    break;
  case K_DELETE:
    if (!guid_arg(a[0], &g, &gnull)) return 0;
    o->hr = ((fn_delete)(void *)p)(gnull ? NULL : &g, &rec);
    break;
  case K_CLOSE:
    o->hr = ((fn_close)(void *)p)(handle_arg(a[0]));
    break;
  case K_HNSCALL:
    o->hr = ((fn_hnscall)(void *)p)(opt_string(&s1, a[0]), opt_string(&s2, a[1]), opt_string(&s3, a[2]), &out);
    break;
  case K_OPEN_SERVICE:
    o->hr = ((fn_open_service)(void *)p)(&h, &rec);
    o->has_handle = 1;
    break;
  case K_REGISTER_SDK:
    o->hr = ((fn_register_sdk)(void *)p)((void *)print_callback, (void *)(ULONG_PTR)0x5eed, &h);
    o->has_handle = 1;
    break;
  case K_REGISTER_SVC:
    o->hr = ((fn_register_svc)(void *)p)(handle_arg(a[0]), (void *)print_callback, (void *)(ULONG_PTR)0x5eed, &h);
    o->has_handle = 1;
    break;
  case K_HCS_CREATE:
    /* hcsshim passes identity 0 */
    o->hr = ((fn_hcs_create)(void *)p)(opt_string(&s1, a[0]), opt_string(&s2, a[1]), NULL, &h, &rec);
    o->has_handle = 1;
    break;
  case K_HCS_OPEN:
    o->hr = ((fn_hcs_open)(void *)p)(opt_string(&s1, a[0]), &h, &rec);
    o->has_handle = 1;
    break;
  case K_HCS_SETTINGS:
    o->hr = ((fn_hcs_settings)(void *)p)(opt_string(&s1, a[0]), &rec);
    break;
  case K_HCS_CREATE_PROCESS: {
    struct {
      DWORD pid, reserved;
      HANDLE in, out, err;
    } info = {0};
    o->hr = ((fn_hcs_create_process)(void *)p)(handle_arg(a[0]), opt_string(&s1, a[1]), &info, &h, &rec);
    o->has_handle = 1;
    break;
  }
  case K_HCS_OPEN_PROCESS:
    o->hr = ((fn_hcs_open_process)(void *)p)(handle_arg(a[0]), (DWORD)parse_number(a[1]), &h, &rec);
    o->has_handle = 1;
    break;
  case K_HCS_HANDLE_OUT:
    o->hr = ((fn_hcs_handle_out)(void *)p)(handle_arg(a[0]), &rec);
    break;
  case K_HCS_PROCESS_INFO: {
    struct {
      DWORD pid, reserved;
      HANDLE in, out, err;
    } info = {0};
    o->hr = ((fn_hcs_process_info)(void *)p)(handle_arg(a[0]), &info, &rec);
    break;
  }
  case K_HCS_PROCESS_PROPS:
    o->hr = ((fn_hcs_process_props)(void *)p)(handle_arg(a[0]), &out, &rec);
    break;
  case K_HCS_REGISTER:
    o->hr = ((fn_hcs_register)(void *)p)(handle_arg(a[0]), (void *)print_callback, (void *)(ULONG_PTR)0x5eed, &h);
    o->has_handle = 1;
    break;
  case K_CC_CREATE_OPERATION:
    h = ((fn_cc_create_operation)(void *)p)(NULL, NULL);
    o->hr = h ? S_OK : E_FAIL;
    o->has_handle = 1;
    break;
  case K_CC_CLOSE:
    ((fn_cc_void_close)(void *)p)(handle_arg(a[0]));
    o->hr = S_OK;
    break;
  case K_CC_CREATE:
    o->hr = ((fn_cc_create)(void *)p)(opt_string(&s1, a[0]), opt_string(&s2, a[1]), handle_arg(a[2]), NULL, &h);
    o->has_handle = 1;
    break;
  case K_CC_OPEN:
    o->hr = ((fn_cc_open)(void *)p)(opt_string(&s1, a[0]), (DWORD)parse_number(a[1]), &h);
    o->has_handle = 1;
    break;
  case K_CC_OP:
    o->hr = ((fn_cc_op)(void *)p)(handle_arg(a[0]), handle_arg(a[1]), opt_string(&s1, a[2]));
    break;
  case K_CC_MODIFY:
    o->hr = ((fn_cc_modify)(void *)p)(handle_arg(a[0]), handle_arg(a[1]), opt_string(&s1, a[2]), NULL);
    break;
  case K_CC_ENUM:
    o->hr = ((fn_cc_enum)(void *)p)(opt_string(&s1, a[0]), handle_arg(a[1]));
    break;
  case K_CC_WAIT:
    o->hr = ((fn_cc_wait)(void *)p)(handle_arg(a[0]), (DWORD)parse_number(a[1]), &out);
    break;
  }
  o->us = now_us() - t0;
  o->handle = h;
  o->result = out;
  o->record = rec;
  free(s1);
  free(s2);
  free(s3);
  if (c->store_handle) {
    struct var *v = var_get(c->store_handle, 1);
    if (v) {
      v->handle = h;
      if ((f->kind == K_CREATE || f->kind == K_CREATE_EP || f->kind == K_OPEN) && !gnull &&
          !is_zero_guid(&g)) {
        v->guid = g;
        v->has_guid = 1;
      }
    }
  }
  if (c->store_id) {
    struct var *v = var_get(c->store_id, 1);
    GUID id;
    if (v && find_id(out, &id)) {
      v->guid = id;
      v->has_guid = 1;
    }
  }
  return 1;
}

/* Whether the COM task allocator owns a block (IMalloc::DidAlloc: 1 yes, 0 no, -1 cannot tell). */
static const char *owned(void *p) {
  if (!task_malloc) return "null";
  int r = IMalloc_DidAlloc(task_malloc, p);
  return r == 1 ? "true" : r == 0 ? "false" : "null";
}

static void release(struct outcome *o) {
  if (free_results) {
    if (o->result) task_free(o->result);
    if (o->record) task_free(o->record);
  }
  o->result = o->record = NULL;
}

static void print_outcome(int index, const struct call *c, struct outcome *o) {
  struct buf b = {0};
  putf(&b, "{\"i\":%d,\"fn\":", index);
  put_json(&b, c->fn->name);
  putf(&b, ",\"hr\":%lu", (unsigned long)(DWORD)o->hr);
  if (o->missing) put(&b, ",\"missing\":true");
  put(&b, ",\"result\":");
  put_wjson(&b, o->result);
  put(&b, ",\"record\":");
  put_wjson(&b, o->record);
  if (o->has_handle) putf(&b, ",\"handle\":%llu", (unsigned long long)(ULONG_PTR)o->handle);
  else put(&b, ",\"handle\":null");
  put(&b, ",\"heap\":[");
  int first = 1;
  if (o->result) {
    put(&b, owned(o->result));
    first = 0;
  }
  if (o->record) {
    if (!first) put(&b, ",");
    put(&b, owned(o->record));
  }
  put(&b, "]");
  if (FAILED(o->hr) && !o->missing) {
    /* the text hcsshim shows: syscall.Errno(Win32FromHresult(hr)).Error(), i.e. FormatMessage */
    DWORD code = ((DWORD)o->hr & 0x1fff0000) == 0x00070000 ? ((DWORD)o->hr & 0xffff) : (DWORD)o->hr;
    wchar_t text[512];
    DWORD n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0, text,
                             sizeof text / sizeof text[0], NULL);
    while (n > 0 && (text[n - 1] == L'\r' || text[n - 1] == L'\n' || text[n - 1] == L' ')) text[--n] = 0;
    put(&b, ",\"msg\":");
    put_wjson(&b, n ? text : NULL);
  }
  putf(&b, ",\"us\":%.1f}", o->us);
  emit(&b);
  free(b.p);
}

/* ───────────────────────────── input ───────────────────────────── */

static char *read_line(FILE *in) {
  size_t cap = 1024, n = 0;
  char *s = malloc(cap);
  int ch;
  while ((ch = fgetc(in)) != EOF) {
    if (ch == '\n') break;
    if (n + 2 > cap) s = realloc(s, cap *= 2);
    s[n++] = (char)ch;
  }
  if (ch == EOF && n == 0) {
    free(s);
    return NULL;
  }
  if (n && s[n - 1] == '\r') n--;
  s[n] = 0;
  return s;
}

static const struct fn *find_fn(const char *name) {
  for (size_t i = 0; i < NFNS; i++)
    if (strcmp(FNS[i].name, name) == 0) return &FNS[i];
  return NULL;
}

/* Split a call line into a call (the fields point into `line`); 0 if the function is unknown. */
static int parse_call(char *line, struct call *c) {
  memset(c, 0, sizeof *c);
  char *fields[MAX_FIELDS + 3];
  int n = 0;
  char *p = line;
  fields[n++] = p;
  while ((p = strchr(p, '\t')) != NULL && n < MAX_FIELDS + 3) {
    *p++ = 0;
    fields[n++] = p;
  }
  c->fn = find_fn(fields[0]);
  if (!c->fn) {
    fprintf(stderr, "hcncall: unknown function %s\n", fields[0]);
    return 0;
  }
  for (int i = 1; i < n; i++) {
    if (fields[i][0] == '>' && fields[i][1]) c->store_handle = fields[i] + 1;
    else if (fields[i][0] == '&' && fields[i][1]) c->store_id = fields[i] + 1;
    else if (c->nargs < MAX_FIELDS) c->args[c->nargs++] = fields[i];
  }
  return 1;
}

struct block {
  char **lines;
  int n, cap;
};

static void block_add(struct block *b, char *line) {
  if (b->n == b->cap) b->lines = realloc(b->lines, sizeof(char *) * (size_t)(b->cap = b->cap ? b->cap * 2 : 16));
  b->lines[b->n++] = line;
}

struct summary {
  long calls, failed, missing, bad_heap, nonempty_record_on_success, unstable;
  HRESULT first_failure;
  char first_failure_fn[64];
  double us;
};

/* Run a block's lines `times` times; nothing printed per call. */
static int run_block(const struct block *blk, long times, struct summary *s) {
  memset(s, 0, sizeof *s);
  /* each line's first result: a later iteration that answers differently is "unstable" (a reply
     that went to the wrong call or thread) */
  wchar_t **first = calloc((size_t)blk->n + 1, sizeof *first);
  double t0 = now_us();
  for (long t = 0; t < times; t++) {
    for (int i = 0; i < blk->n; i++) {
      char *copy = _strdup(blk->lines[i]);
      struct call c;
      struct outcome o;
      if (!parse_call(copy, &c) || !run_call(&c, &o)) {
        free(copy);
        return 0;
      }
      s->calls++;
      if (o.missing) s->missing++;
      if (FAILED(o.hr)) {
        if (!s->failed) {
          s->first_failure = o.hr;
          snprintf(s->first_failure_fn, sizeof s->first_failure_fn, "%s", c.fn->name);
        }
        s->failed++;
      } else if (o.record && o.record[0]) {
        s->nonempty_record_on_success++;
      }
      if (task_malloc && ((o.result && IMalloc_DidAlloc(task_malloc, o.result) == 0) ||
                          (o.record && IMalloc_DidAlloc(task_malloc, o.record) == 0)))
        s->bad_heap++;
      const wchar_t *text = o.result ? o.result : L"";
      if (t == 0) first[i] = _wcsdup(text);
      else if (wcscmp(first[i], text) != 0) s->unstable++;
      release(&o);
      free(copy);
    }
  }
  s->us = now_us() - t0;
  for (int i = 0; i < blk->n; i++) free(first[i]);
  free(first);
  return 1;
}

static void print_summary(const char *what, int index, long times, const struct summary *s) {
  struct buf b = {0};
  putf(&b, "{\"%s\":%ld,\"i\":%d,\"calls\":%ld,\"failed\":%ld,\"missing\":%ld,\"badHeap\":%ld,", what, times,
       index, s->calls, s->failed, s->missing, s->bad_heap);
  putf(&b, "\"recordOnSuccess\":%ld,\"unstable\":%ld,\"firstFailure\":", s->nonempty_record_on_success,
       s->unstable);
  if (s->failed) {
    putf(&b, "{\"fn\":");
    put_json(&b, s->first_failure_fn);
    putf(&b, ",\"hr\":%lu}", (unsigned long)(DWORD)s->first_failure);
  } else put(&b, "null");
  putf(&b, ",\"us\":%.1f,\"usPerCall\":%.2f}", s->us, s->calls ? s->us / (double)s->calls : 0.0);
  emit(&b);
  free(b.p);
}

struct thread_arg {
  const struct block *blk;
  long times;
  int scope;
  struct summary s;
  int ok;
};

static DWORD WINAPI thread_main(void *p) {
  struct thread_arg *t = p;
  var_scope = t->scope;
  t->ok = run_block(t->blk, t->times, &t->s);
  return 0;
}

static void print_mem(void) {
  PROCESS_MEMORY_COUNTERS_EX pmc;
  memset(&pmc, 0, sizeof pmc);
  pmc.cb = sizeof pmc;
  K32GetProcessMemoryInfo(GetCurrentProcess(), (PROCESS_MEMORY_COUNTERS *)&pmc, sizeof pmc);
  /* the process heap's committed bytes, walked: what CoTaskMemAlloc draws from */
  unsigned long long busy = 0;
  PROCESS_HEAP_ENTRY e;
  e.lpData = NULL;
  HANDLE heap = GetProcessHeap();
  if (HeapLock(heap)) {
    while (HeapWalk(heap, &e))
      if (e.wFlags & PROCESS_HEAP_ENTRY_BUSY) busy += e.cbData;
    HeapUnlock(heap);
  }
  struct buf b = {0};
  putf(&b, "{\"mem\":{\"private\":%llu,\"workingSet\":%llu,\"heapBusy\":%llu}}",
       (unsigned long long)pmc.PrivateUsage, (unsigned long long)pmc.WorkingSetSize, busy);
  emit(&b);
  free(b.p);
}

/* A directive's path: UTF-8 as it is (no escapes: "Z:\tmp" stays a path). */
static wchar_t *path_arg(const char *s) {
  int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
  wchar_t *w = malloc(sizeof(wchar_t) * (size_t)(n > 0 ? n : 1));
  if (n > 0) MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n);
  else w[0] = 0;
  return w;
}

static int wide_path_exists(const char *path) {
  wchar_t *w = path_arg(path);
  DWORD a = GetFileAttributesW(w);
  free(w);
  return a != INVALID_FILE_ATTRIBUTES;
}

int main(void) {
  InitializeCriticalSection(&out_lock);
  InitializeCriticalSection(&var_lock);
  init_task_allocator();
  int index = 0;
  char *line;
  while ((line = read_line(stdin)) != NULL) {
    if (line[0] == 0 || line[0] == '#') {
      free(line);
      continue;
    }
    if (line[0] == '!') {
      char *arg = strchr(line, ' ');
      if (arg) *arg++ = 0;
      const char *d = line + 1;
      if (strcmp(d, "loop") == 0 || strcmp(d, "threads") == 0) {
        long n = arg ? strtol(arg, &arg, 10) : 1;
        long m = arg && *arg ? strtol(arg, NULL, 10) : 1;
        struct block blk = {0};
        char *l;
        while ((l = read_line(stdin)) != NULL && strcmp(l, "!end") != 0) block_add(&blk, l);
        free(l);
        if (strcmp(d, "loop") == 0) {
          struct summary s;
          if (!run_block(&blk, n, &s)) return 2;
          print_summary("loop", index, n, &s);
        } else {
          struct thread_arg *ts = calloc((size_t)n, sizeof *ts);
          HANDLE *hs = calloc((size_t)n, sizeof *hs);
          for (long i = 0; i < n; i++) {
            ts[i].blk = &blk;
            ts[i].times = m;
            ts[i].scope = (int)i + 1;
            hs[i] = CreateThread(NULL, 0, thread_main, &ts[i], 0, NULL);
          }
          WaitForMultipleObjects((DWORD)n, hs, TRUE, INFINITE);
          for (long i = 0; i < n; i++) {
            CloseHandle(hs[i]);
            if (!ts[i].ok) return 2;
            print_summary("thread", index, m, &ts[i].s);
          }
          free(ts);
          free(hs);
        }
        for (int i = 0; i < blk.n; i++) free(blk.lines[i]);
        free(blk.lines);
        index++;
      } else if (strcmp(d, "touch") == 0 && arg) {
        wchar_t *w = path_arg(arg);
        HANDLE f = CreateFileW(w, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
        if (f != INVALID_HANDLE_VALUE) CloseHandle(f);
        free(w);
      } else if (strcmp(d, "wait") == 0 && arg) {
        char *ms = strchr(arg, ' ');
        if (ms) *ms++ = 0;
        DWORD limit = ms ? (DWORD)strtoul(ms, NULL, 10) : 30000, waited = 0;
        while (!wide_path_exists(arg) && waited < limit) {
          Sleep(10);
          waited += 10;
        }
      } else if (strcmp(d, "sleep") == 0 && arg) {
        Sleep((DWORD)strtoul(arg, NULL, 10));
      } else if (strcmp(d, "mem") == 0) {
        print_mem();
      } else if (strcmp(d, "echo") == 0) {
        struct buf b = {0};
        put(&b, "{\"echo\":");
        put_json(&b, arg ? arg : "");
        put(&b, "}");
        emit(&b);
        free(b.p);
      } else if (strcmp(d, "nofree") == 0) {
        free_results = 0;
      } else if (strcmp(d, "free") == 0) {
        free_results = 1;
      } else if (strcmp(d, "quiet") == 0) {
        quiet = 1;
      } else if (strcmp(d, "verbose") == 0) {
        quiet = 0;
      } else {
        fprintf(stderr, "hcncall: unknown directive !%s\n", d);
        return 2;
      }
      free(line);
      continue;
    }
    struct call c;
    struct outcome o;
    if (!parse_call(line, &c) || !run_call(&c, &o)) return 2;
    if (!quiet) print_outcome(index, &c, &o);
    release(&o);
    index++;
    free(line);
  }
  return 0;
}
