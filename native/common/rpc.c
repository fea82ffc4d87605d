/*
 * The JSON-RPC client: one TCP connection per DLL per process to `hnsim serve --listen`, opened on
 * the first call and kept, one request line out and one response line back at a time (a critical
 * section serialises the threads of the process). The wire is documented in docs/api.md ("Over
 * TCP"); answers are matched by id.
 *
 * A stopped HNS service makes every call fail with RPC_S_SERVER_UNAVAILABLE before any work
 * (docs/model.md), and that is what a missing or unreachable simulator looks like here. A call
 * whose answer is lost after the request went out (the connection resets, the answer does not
 * come in time) fails with RPC_S_CALL_FAILED, as a call cut off by an HNS restart does in the
 * simulator: the service may have carried it out. A call waits at most about twice the timeout.
 */
#include "hnsim.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TIMEOUT_MS 5000

static CRITICAL_SECTION g_lock;
static int g_lock_ready;
static int g_wsa_ready;
static SOCKET g_sock = INVALID_SOCKET;
static long long g_next_id = 1;
/* bytes received after the last answer line (the server sends nothing unasked, so normally none) */
static hn_buf g_pending;

void hn_rpc_init(void) {
  InitializeCriticalSection(&g_lock);
  g_lock_ready = 1;
  hn_buf_init(&g_pending);
}

/* FreeLibrary: close the connection. At process exit the system reclaims it, so leave it. */
void hn_rpc_fini(int unloading) {
  if (!g_lock_ready || !unloading) return;
  if (g_sock != INVALID_SOCKET) closesocket(g_sock);
  g_sock = INVALID_SOCKET;
  hn_buf_free(&g_pending);
  DeleteCriticalSection(&g_lock);
  g_lock_ready = 0;
}

static DWORD timeout_ms(void) {
  char text[32];
  DWORD n = GetEnvironmentVariableA("HNSIM_TIMEOUT_MS", text, sizeof text);
  if (n == 0 || n >= sizeof text) return DEFAULT_TIMEOUT_MS;
  char *end;
  unsigned long v = strtoul(text, &end, 10);
  if (*end != '\0' || v == 0 || v > 24ul * 3600 * 1000) return DEFAULT_TIMEOUT_MS;
  return (DWORD)v;
}

static void drop_connection(void) {
  if (g_sock != INVALID_SOCKET) closesocket(g_sock);
  g_sock = INVALID_SOCKET;
  g_pending.len = 0;
}

/* Wait until the socket can be read (write = 0) or written (write = 1); FALSE on timeout or error. */
static int wait_socket(SOCKET s, int write, DWORD ms) {
  fd_set set, errs;
  FD_ZERO(&set);
  FD_ZERO(&errs);
  FD_SET(s, &set);
  FD_SET(s, &errs);
  struct timeval tv = {(long)(ms / 1000), (long)(ms % 1000) * 1000};
  int n = select(0, write ? NULL : &set, write ? &set : NULL, &errs, &tv);
  return n > 0 && FD_ISSET(s, &set);
}

/* Split "host:port" / "[v6]:port" into its parts (both written NUL-terminated). */
static int parse_endpoint(const char *text, char *host, size_t hostcap, char *port, size_t portcap) {
  const char *colon = strrchr(text, ':');
  if (!colon || colon == text || !colon[1]) return 0;
  const char *h = text, *hend = colon;
  if (*h == '[') {
    if (hend[-1] != ']') return 0;
    h++;
    hend--;
  }
  size_t hl = (size_t)(hend - h), pl = strlen(colon + 1);
  if (hl == 0 || hl >= hostcap || pl >= portcap) return 0;
  for (const char *p = colon + 1; *p; p++)
    if (*p < '0' || *p > '9') return 0;
  memcpy(host, h, hl);
  host[hl] = '\0';
  memcpy(port, colon + 1, pl + 1);
  return 1;
}

/* Connect to HNSIM_ENDPOINT within the timeout; FALSE when the simulator cannot be reached. */
static int connect_simulator(DWORD ms) {
  char endpoint[300], host[256], port[16];
  DWORD n = GetEnvironmentVariableA("HNSIM_ENDPOINT", endpoint, sizeof endpoint);
  if (n == 0 || n >= sizeof endpoint) return 0;
  if (!parse_endpoint(endpoint, host, sizeof host, port, sizeof port)) return 0;
  if (!g_wsa_ready) {
    WSADATA wsa;
    if (WSAStartup(MAKEWORD(2, 2), &wsa) != 0) return 0;
    g_wsa_ready = 1; /* kept for the life of the process, like the connection */
  }
  struct addrinfo hints, *list = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_protocol = IPPROTO_TCP;
  if (getaddrinfo(host, port, &hints, &list) != 0) return 0;
  for (struct addrinfo *a = list; a; a = a->ai_next) {
    SOCKET s = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (s == INVALID_SOCKET) continue;
    /* connect without blocking, so a silent peer costs at most the timeout */
    u_long nonblocking = 1, blocking = 0;
    ioctlsocket(s, FIONBIO, &nonblocking);
    int ok = connect(s, a->ai_addr, (int)a->ai_addrlen) == 0;
    if (!ok && WSAGetLastError() == WSAEWOULDBLOCK && wait_socket(s, 1, ms)) {
      int err = 0, len = sizeof err;
      ok = getsockopt(s, SOL_SOCKET, SO_ERROR, (char *)&err, &len) == 0 && err == 0;
    }
    if (ok) {
      ioctlsocket(s, FIONBIO, &blocking);
      BOOL nodelay = TRUE;
      setsockopt(s, IPPROTO_TCP, TCP_NODELAY, (const char *)&nodelay, sizeof nodelay);
      /* blocking send and recv bounded by the timeout: no select() before each (under Wine every
         Winsock call is a round trip to wineserver, and they dominate a call's cost) */
      DWORD t = ms;
      setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, (const char *)&t, sizeof t);
      setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, (const char *)&t, sizeof t);
      g_sock = s;
      g_pending.len = 0;
      break;
    }
    closesocket(s);
  }
  freeaddrinfo(list);
  return g_sock != INVALID_SOCKET;
}

/*
 * Whether a kept connection is still usable: the server closes connections when it stops, and
 * the next request on such a socket would be lost. A readable socket with nothing to read is one
 * the peer closed.
 */
static int connection_alive(void) {
  if (!wait_socket(g_sock, 0, 0)) return 1; /* nothing to read: still open */
  char c;
  int n = recv(g_sock, &c, 1, MSG_PEEK);
  return n > 0;
}

static int send_all(const char *p, size_t n) {
  while (n > 0) {
    int chunk = n > 0x10000 ? 0x10000 : (int)n;
    int sent = send(g_sock, p, chunk, 0);
    if (sent <= 0) return 0;
    p += sent;
    n -= (size_t)sent;
  }
  return 1;
}

/*
 * One line (without its LF or CRLF) into `line`; FALSE on timeout, reset or end of stream. Each
 * recv waits at most the timeout (SO_RCVTIMEO), and the whole line at most twice that.
 */
static int read_line(hn_buf *line, DWORD ms) {
  DWORD start = GetTickCount();
  for (;;) {
    char *nl = g_pending.len ? memchr(g_pending.data, '\n', g_pending.len) : NULL;
    if (nl) {
      size_t n = (size_t)(nl - g_pending.data);
      size_t keep = g_pending.len - n - 1;
      hn_buf_raw(line, g_pending.data, n > 0 && nl[-1] == '\r' ? n - 1 : n);
      memmove(g_pending.data, nl + 1, keep);
      g_pending.len = keep;
      return !line->failed;
    }
    if (GetTickCount() - start > ms) return 0;
    char chunk[16384];
    int got = recv(g_sock, chunk, sizeof chunk, 0);
    if (got <= 0) return 0;
    hn_buf_raw(&g_pending, chunk, (size_t)got);
    if (g_pending.failed) return 0;
  }
}

/* Fill `r` from a response line (taking ownership of it). */
static void parse_reply(char *text, size_t len, hn_reply *r) {
  hn_span all = {text, len}, v, err, data, code;
  r->line = text;
  r->reached = 1;
  if (hn_json_member(all, "result", &v)) {
    r->hr = S_OK;
    r->result = v;
    return;
  }
  r->hr = HN_E_FAIL;
  if (!hn_json_member(all, "error", &err)) return;
  if (hn_json_member(err, "message", &v)) r->message = hn_json_string(v);
  long long n = 0;
  if (hn_json_member(err, "data", &data)) {
    if (hn_json_member(data, "hresult", &v) && hn_json_int(v, &n) && n != 0) r->hr = (HRESULT)(unsigned long)n;
    if (hn_json_member(data, "errorRecord", &v) && !hn_json_is_null(v)) r->record = v;
    return;
  }
  /* a protocol error (no HRESULT): an older simulator without the method, or bad parameters */
  if (hn_json_member(err, "code", &code) && hn_json_int(code, &n)) {
    if (n == -32601) r->hr = HN_E_NOTIMPL;
    if (n == -32602) r->hr = HN_E_INVALIDARG;
  }
}

void hn_call(const char *method, const hn_buf *params, hn_reply *r) {
  memset(r, 0, sizeof *r);
  r->hr = HN_RPC_S_SERVER_UNAVAILABLE;
  if (params->failed) {
    r->hr = HN_E_OUTOFMEMORY;
    return;
  }
  DWORD ms = timeout_ms();
  EnterCriticalSection(&g_lock);
  if (g_sock != INVALID_SOCKET && !connection_alive()) drop_connection();
  if (g_sock == INVALID_SOCKET && !connect_simulator(ms)) {
    LeaveCriticalSection(&g_lock);
    return;
  }
  long long id = g_next_id++;
  hn_buf req;
  hn_buf_init(&req);
  hn_buf_cstr(&req, "{\"jsonrpc\":\"2.0\",\"id\":");
  hn_buf_int(&req, id);
  hn_buf_cstr(&req, ",\"method\":");
  hn_buf_json_utf8(&req, method, strlen(method));
  hn_buf_cstr(&req, ",\"params\":");
  hn_buf_raw(&req, params->data, params->len);
  hn_buf_cstr(&req, "}\n");
  if (req.failed) {
    hn_buf_free(&req);
    LeaveCriticalSection(&g_lock);
    r->hr = HN_E_OUTOFMEMORY;
    return;
  }
  if (!send_all(req.data, req.len)) {
    /* nothing was answered, and a partial line is never run: the call did not happen */
    hn_buf_free(&req);
    drop_connection();
    LeaveCriticalSection(&g_lock);
    return;
  }
  hn_buf_free(&req);
  for (;;) {
    hn_buf line;
    hn_buf_init(&line);
    if (!read_line(&line, ms)) {
      hn_buf_free(&line);
      /* a late answer must not be taken for the next call's: this connection is done */
      drop_connection();
      r->hr = HN_RPC_S_CALL_FAILED;
      break;
    }
    hn_span all = {line.data, line.len}, v;
    long long got;
    if (line.len && hn_json_member(all, "id", &v) && hn_json_int(v, &got) && got == id) {
      parse_reply(line.data, line.len, r);
      break;
    }
    hn_buf_free(&line); /* an answer to an earlier call (or a blank line): not ours */
  }
  LeaveCriticalSection(&g_lock);
}

void hn_reply_free(hn_reply *r) {
  free(r->line);
  free(r->message);
  memset(r, 0, sizeof *r);
}

void hn_call_wstrs(const char *method, hn_reply *r, int n, ...) {
  hn_buf p;
  hn_buf_init(&p);
  hn_buf_cstr(&p, "[");
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) {
    if (i) hn_buf_cstr(&p, ",");
    hn_buf_json_wstr(&p, va_arg(ap, PCWSTR));
  }
  va_end(ap);
  hn_buf_cstr(&p, "]");
  hn_call(method, &p, r);
  hn_buf_free(&p);
}

void hn_call_id(const char *method, const char *id, int with_text, PCWSTR text, hn_reply *r) {
  hn_buf p;
  hn_buf_init(&p);
  hn_buf_cstr(&p, "[");
  hn_buf_json_utf8(&p, id, strlen(id));
  if (with_text) {
    hn_buf_cstr(&p, ",");
    hn_buf_json_wstr(&p, text);
  }
  hn_buf_cstr(&p, "]");
  hn_call(method, &p, r);
  hn_buf_free(&p);
}
