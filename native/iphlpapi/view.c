/*
 * The node's interfaces and routes, fetched from the simulator once per API call (`GetIpInterfaces`
 * over the JSON-RPC connection of native/common/rpc.c) and parsed into plain structures. Every
 * export answers from a fresh view, so a program sees networks come and go as the node changes.
 */
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hn_node_configured(void) {
  char probe[8];
  return GetEnvironmentVariableA("HNSIM_ENDPOINT", probe, sizeof probe) != 0;
}

FARPROC hn_wine_proc(const char *name) {
  static HMODULE wine;
  HMODULE m = wine;
  if (!m) {
    m = LoadLibraryExW(HN_WINE_IPHLPAPI, NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
    if (!m) return NULL;
    wine = m; /* a second LoadLibrary of the same module returns the same handle */
  }
  return GetProcAddress(m, name);
}

ULONG hn_if_metric(const hn_if *i) {
  return i->kind == HN_IF_LOOPBACK ? HN_METRIC_LOOPBACK : HN_METRIC_ETHERNET;
}

ULONG64 hn_if_speed(const hn_if *i) {
  return i->kind == HN_IF_LOOPBACK ? 1073741824ull : 10000000000ull;
}

/* ───────────────────────── text → values ───────────────────────── */

static int hexdigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int parse_ipv4(const char *s, BYTE out[4]) {
  for (int i = 0; i < 4; i++) {
    if (*s < '0' || *s > '9') return 0;
    unsigned v = 0;
    int digits = 0;
    while (*s >= '0' && *s <= '9') {
      v = v * 10 + (unsigned)(*s++ - '0');
      if (++digits > 3 || v > 255) return 0;
    }
    out[i] = (BYTE)v;
    if (i < 3 && *s++ != '.') return 0;
  }
  return *s == '\0';
}

/* RFC 4291 text: eight groups, one `::`, an optional dotted IPv4 tail. */
static int parse_ipv6(const char *s, BYTE out[16]) {
  WORD head[8], tail[8];
  int nh = 0, nt = 0, gap = 0;
  BYTE v4[4];
  if (s[0] == ':' && s[1] == ':') {
    gap = 1;
    s += 2;
  }
  while (*s) {
    const char *dot = strchr(s, '.');
    const char *colon = strchr(s, ':');
    if (dot && (!colon || dot < colon)) {
      if (!parse_ipv4(s, v4)) return 0;
      WORD *g = gap ? tail : head;
      int *n = gap ? &nt : &nh;
      if (*n > 6) return 0;
      g[(*n)++] = (WORD)(v4[0] << 8 | v4[1]);
      g[(*n)++] = (WORD)(v4[2] << 8 | v4[3]);
      s += strlen(s);
      break;
    }
    unsigned v = 0;
    int digits = 0, d;
    while ((d = hexdigit(*s)) >= 0) {
      v = v << 4 | (unsigned)d;
      s++;
      if (++digits > 4) return 0;
    }
    if (digits == 0) return 0;
    WORD *g = gap ? tail : head;
    int *n = gap ? &nt : &nh;
    if (*n >= 8) return 0;
    g[(*n)++] = (WORD)v;
    if (*s == ':') {
      s++;
      if (*s == ':') {
        if (gap) return 0;
        gap = 1;
        s++;
      } else if (*s == '\0') {
        return 0;
      }
    }
  }
  if (gap ? nh + nt > 7 : nh != 8) return 0;
  memset(out, 0, 16);
  for (int i = 0; i < nh; i++) {
    out[2 * i] = (BYTE)(head[i] >> 8);
    out[2 * i + 1] = (BYTE)head[i];
  }
  for (int i = 0; i < nt; i++) {
    int at = 8 - nt + i;
    out[2 * at] = (BYTE)(tail[i] >> 8);
    out[2 * at + 1] = (BYTE)tail[i];
  }
  return 1;
}

static int parse_ip(const char *s, hn_ip *out) {
  memset(out, 0, sizeof *out);
  if (strchr(s, ':')) {
    out->family = AF_INET6;
    return parse_ipv6(s, out->bytes);
  }
  out->family = AF_INET;
  return parse_ipv4(s, out->bytes);
}

/* `10.0.0.0/24`, `::1/128`. */
static int parse_prefix(const char *s, hn_ip *out) {
  const char *slash = strchr(s, '/');
  if (!slash || slash - s >= 64) return 0;
  char addr[64];
  memcpy(addr, s, (size_t)(slash - s));
  addr[slash - s] = '\0';
  if (!parse_ip(addr, out)) return 0;
  char *end;
  unsigned long len = strtoul(slash + 1, &end, 10);
  if (*end || slash[1] == '\0' || len > (out->family == AF_INET ? 32u : 128u)) return 0;
  out->prefix = (UINT8)len;
  return 1;
}

/* `81002A26-6431-49B1-9D94-34CABCD4DB7C` (braces allowed). */
static int parse_guid(const char *s, GUID *g) {
  if (*s == '{') s++;
  BYTE b[16];
  int n = 0;
  for (const char *p = s; *p && *p != '}'; p++) {
    if (*p == '-') continue;
    int hi = hexdigit(p[0]), lo = p[1] ? hexdigit(p[1]) : -1;
    if (hi < 0 || lo < 0 || n >= 16) return 0;
    b[n++] = (BYTE)(hi << 4 | lo);
    p++;
  }
  if (n != 16) return 0;
  g->Data1 = (ULONG)b[0] << 24 | (ULONG)b[1] << 16 | (ULONG)b[2] << 8 | b[3];
  g->Data2 = (USHORT)(b[4] << 8 | b[5]);
  g->Data3 = (USHORT)(b[6] << 8 | b[7]);
  memcpy(g->Data4, b + 8, 8);
  return 1;
}

/* `00-15-5D-01-02-03` (or with colons); an empty text is no address. */
static int parse_mac(const char *s, BYTE out[8], ULONG *len) {
  *len = 0;
  while (*s) {
    int hi = hexdigit(s[0]), lo = s[1] ? hexdigit(s[1]) : -1;
    if (hi < 0 || lo < 0 || *len >= 8) return 0;
    out[(*len)++] = (BYTE)(hi << 4 | lo);
    s += 2;
    if (*s == '-' || *s == ':') s++;
  }
  return 1;
}

/* ───────────────────────── the answer → the view ───────────────────────── */

static char *member_string(hn_span obj, const char *key) {
  hn_span v;
  return hn_json_member(obj, key, &v) ? hn_json_string(v) : NULL;
}

static int member_int(hn_span obj, const char *key, long long *out) {
  hn_span v;
  return hn_json_member(obj, key, &v) && hn_json_int(v, out);
}

static int member_wide(hn_span obj, const char *key, WCHAR *out, int cap) {
  char *s = member_string(obj, key);
  if (!s) return 0;
  int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, out, cap);
  free(s);
  if (n == 0) out[cap - 1] = 0;
  return 1;
}

/* `[{address, prefixLength}]` (with_prefix) or `["10.0.0.1"]` into a fresh array. */
static int address_list(hn_span obj, const char *key, int with_prefix, hn_ip **out, size_t *n) {
  hn_span arr, item;
  *out = NULL;
  *n = 0;
  if (!hn_json_member(obj, key, &arr)) return 1; /* absent: none */
  size_t pos = 0, count = 0;
  while (hn_json_next(arr, &pos, &item)) count++;
  if (count == 0) return 1;
  *out = calloc(count, sizeof **out);
  if (!*out) return 0;
  pos = 0;
  while (hn_json_next(arr, &pos, &item)) {
    hn_ip *ip = &(*out)[*n];
    char *text;
    long long len = 0;
    if (with_prefix) {
      text = member_string(item, "address");
      if (!text || !member_int(item, "prefixLength", &len)) {
        free(text);
        return 0;
      }
    } else {
      text = hn_json_string(item);
      if (!text) return 0;
    }
    int ok = parse_ip(text, ip);
    free(text);
    if (!ok || len < 0 || len > (ip->family == AF_INET ? 32 : 128)) return 0;
    ip->prefix = (UINT8)len;
    (*n)++;
  }
  return 1;
}

static int parse_interface(hn_span o, hn_if *i) {
  long long index, luid, type, mtu;
  if (!member_int(o, "ifIndex", &index) || !member_int(o, "luid", &luid) || !member_int(o, "ifType", &type) ||
      !member_int(o, "mtu", &mtu))
    return 0;
  i->index = (NET_IFINDEX)index;
  i->luid.Value = (ULONG64)luid;
  i->type = (ULONG)type;
  i->mtu = (ULONG)mtu;
  if (!member_wide(o, "alias", i->alias, IF_MAX_STRING_SIZE + 1)) return 0;
  member_wide(o, "description", i->description, IF_MAX_STRING_SIZE + 1);
  char *s = member_string(o, "interfaceGuid");
  int ok = s && parse_guid(s, &i->guid);
  free(s);
  if (!ok) return 0;
  snprintf(i->adapter_name, sizeof i->adapter_name, "{%08lX-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X}",
           (unsigned long)i->guid.Data1, i->guid.Data2, i->guid.Data3, i->guid.Data4[0], i->guid.Data4[1],
           i->guid.Data4[2], i->guid.Data4[3], i->guid.Data4[4], i->guid.Data4[5], i->guid.Data4[6],
           i->guid.Data4[7]);
  s = member_string(o, "macAddress");
  ok = s && parse_mac(s, i->mac, &i->mac_len);
  free(s);
  if (!ok) return 0;
  s = member_string(o, "operStatus");
  i->up = s && strcmp(s, "Up") == 0;
  free(s);
  s = member_string(o, "kind");
  i->kind = !s                                 ? HN_IF_HOSTVNIC
            : strcmp(s, "Physical") == 0       ? HN_IF_PHYSICAL
            : strcmp(s, "EndpointVNic") == 0   ? HN_IF_ENDPOINT
            : strcmp(s, "Loopback") == 0       ? HN_IF_LOOPBACK
                                               : HN_IF_HOSTVNIC;
  free(s);
  hn_span b;
  i->ip_enabled = hn_json_member(o, "ipEnabled", &b) && hn_json_bool(b);
  return address_list(o, "ipv4", 1, &i->v4, &i->n_v4) && address_list(o, "ipv6", 1, &i->v6, &i->n_v6) &&
         address_list(o, "gateways", 0, &i->gateways, &i->n_gateways) &&
         address_list(o, "dnsServers", 0, &i->dns, &i->n_dns);
}

static int parse_route(hn_span o, const hn_view *v, hn_route *r) {
  long long index, metric;
  if (!member_int(o, "ifIndex", &index) || !member_int(o, "metric", &metric)) return 0;
  char *dest = member_string(o, "destinationPrefix"), *hop = member_string(o, "nextHop");
  char *origin = member_string(o, "origin");
  int ok = dest && hop && parse_prefix(dest, &r->dest) && parse_ip(hop, &r->next_hop) &&
           r->next_hop.family == r->dest.family;
  r->index = (NET_IFINDEX)index;
  r->metric = (ULONG)metric;
  r->origin = !origin                              ? HN_RO_USER
              : strcmp(origin, "Connected") == 0   ? HN_RO_CONNECTED
              : strcmp(origin, "Default") == 0     ? HN_RO_DEFAULT
              : strcmp(origin, "HostRoute") == 0   ? HN_RO_HOSTROUTE
              : strcmp(origin, "Loopback") == 0    ? HN_RO_LOOPBACK
                                                   : HN_RO_USER;
  free(dest);
  free(hop);
  free(origin);
  const hn_if *i = hn_if_by_index(v, r->index);
  if (!ok || !i) return 0;
  r->luid = i->luid;
  return 1;
}

void hn_view_free(hn_view *v) {
  for (size_t k = 0; k < v->n_ifs; k++) {
    free(v->ifs[k].v4);
    free(v->ifs[k].v6);
    free(v->ifs[k].gateways);
    free(v->ifs[k].dns);
  }
  free(v->ifs);
  free(v->routes);
  memset(v, 0, sizeof *v);
}

static size_t count(hn_span arr) {
  size_t pos = 0, n = 0;
  hn_span item;
  while (hn_json_next(arr, &pos, &item)) n++;
  return n;
}

DWORD hn_view_load(hn_view *v) {
  memset(v, 0, sizeof *v);
  hn_buf params;
  hn_buf_init(&params);
  hn_buf_cstr(&params, "[]");
  hn_reply r;
  hn_call("GetIpInterfaces", &params, &r);
  hn_buf_free(&params);
  if (r.hr != S_OK) {
    DWORD code = r.hr == HN_E_OUTOFMEMORY ? ERROR_NOT_ENOUGH_MEMORY
                 : (r.hr & 0xFFFF0000) == 0x80070000 ? (DWORD)(r.hr & 0xFFFF)
                                                     : ERROR_GEN_FAILURE;
    hn_reply_free(&r);
    return code;
  }
  hn_span ifs, routes, item;
  DWORD status = ERROR_INVALID_DATA;
  if (!hn_json_member(r.result, "interfaces", &ifs) || !hn_json_member(r.result, "routes", &routes)) goto done;
  size_t n_ifs = count(ifs), n_routes = count(routes);
  v->ifs = calloc(n_ifs ? n_ifs : 1, sizeof *v->ifs);
  v->routes = calloc(n_routes ? n_routes : 1, sizeof *v->routes);
  if (!v->ifs || !v->routes) {
    status = ERROR_NOT_ENOUGH_MEMORY;
    goto done;
  }
  size_t pos = 0;
  while (hn_json_next(ifs, &pos, &item)) {
    if (!parse_interface(item, &v->ifs[v->n_ifs])) {
      v->n_ifs++; /* freed with the rest */
      goto done;
    }
    v->n_ifs++;
  }
  pos = 0;
  while (hn_json_next(routes, &pos, &item)) {
    if (!parse_route(item, v, &v->routes[v->n_routes])) goto done;
    v->n_routes++;
  }
  status = NO_ERROR;
done:
  hn_reply_free(&r);
  if (status != NO_ERROR) hn_view_free(v);
  return status;
}

/* ───────────────────────── lookups and addresses ───────────────────────── */

const hn_if *hn_if_by_index(const hn_view *v, NET_IFINDEX index) {
  for (size_t k = 0; k < v->n_ifs; k++)
    if (v->ifs[k].index == index) return &v->ifs[k];
  return NULL;
}

const hn_if *hn_if_by_luid(const hn_view *v, const NET_LUID *luid) {
  for (size_t k = 0; k < v->n_ifs; k++)
    if (v->ifs[k].luid.Value == luid->Value) return &v->ifs[k];
  return NULL;
}

const hn_if *hn_if_by_luid_or_index(const hn_view *v, const NET_LUID *luid, NET_IFINDEX index) {
  if (luid && luid->Value != 0) return hn_if_by_luid(v, luid);
  return hn_if_by_index(v, index);
}

void hn_sockaddr_inet(const hn_ip *ip, SOCKADDR_INET *out) {
  memset(out, 0, sizeof *out);
  if (ip->family == AF_INET) {
    out->Ipv4.sin_family = AF_INET;
    memcpy(&out->Ipv4.sin_addr, ip->bytes, 4);
  } else {
    out->Ipv6.sin6_family = AF_INET6;
    memcpy(&out->Ipv6.sin6_addr, ip->bytes, 16);
  }
}

int hn_ip_from_sockaddr(const SOCKADDR_INET *sa, hn_ip *out) {
  memset(out, 0, sizeof *out);
  if (sa->si_family == AF_INET) {
    out->family = AF_INET;
    memcpy(out->bytes, &sa->Ipv4.sin_addr, 4);
    return 1;
  }
  if (sa->si_family == AF_INET6) {
    out->family = AF_INET6;
    memcpy(out->bytes, &sa->Ipv6.sin6_addr, 16);
    return 1;
  }
  return 0;
}

int hn_prefix_contains(const hn_ip *p, const hn_ip *ip) {
  if (p->family != ip->family) return 0;
  unsigned full = p->prefix / 8, rest = p->prefix % 8;
  if (memcmp(p->bytes, ip->bytes, full) != 0) return 0;
  if (rest == 0) return 1;
  BYTE mask = (BYTE)(0xFF << (8 - rest));
  return (p->bytes[full] & mask) == (ip->bytes[full] & mask);
}

void hn_ipv4_text(const BYTE b[4], char out[16]) {
  snprintf(out, 16, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
}

DWORD hn_ipv4_dword(const BYTE b[4]) {
  DWORD d;
  memcpy(&d, b, 4); /* network order in memory, as IPv4 DWORDs are in the MIB structures */
  return d;
}

DWORD hn_ipv4_mask(UINT8 prefix) {
  ULONG host = prefix == 0 ? 0 : 0xFFFFFFFFul << (32 - prefix);
  BYTE b[4] = {(BYTE)(host >> 24), (BYTE)(host >> 16), (BYTE)(host >> 8), (BYTE)host};
  return hn_ipv4_dword(b);
}

const hn_route *hn_best_route(const hn_view *v, const hn_ip *dest, const hn_if *only) {
  const hn_route *best = NULL;
  for (size_t k = 0; k < v->n_routes; k++) {
    const hn_route *r = &v->routes[k];
    if (only && r->index != only->index) continue;
    if (!hn_prefix_contains(&r->dest, dest)) continue;
    if (!best || r->dest.prefix > best->dest.prefix ||
        (r->dest.prefix == best->dest.prefix && r->metric < best->metric))
      best = r;
  }
  return best;
}

/* ───────────────────────── buffers ───────────────────────── */

void *hn_take(hn_arena *a, size_t size, size_t align) {
  uintptr_t at = a->base + a->used;
  uintptr_t aligned = (at + align - 1) & ~(uintptr_t)(align - 1);
  a->used = (size_t)(aligned - a->base) + size;
  if (!a->write) return NULL;
  memset((void *)aligned, 0, size);
  return (void *)aligned;
}

void *hn_mib_alloc(size_t size) {
  return HeapAlloc(GetProcessHeap(), HEAP_ZERO_MEMORY, size);
}
